import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { collectGaps, describePointer, groupByQuote, pointerTokens } from "../../scripts/docs/gaps.js";
import { renderGapsContent } from "../../scripts/docs/gaps-page.js";
import { fromRoot } from "../../scripts/lib/paths.js";
import { loadOpenApi } from "../support/contract.js";

const gap = (quote: string, choice = "c") => ({ quote, choice });

describe("collectGaps", () => {
  it("reads one mark or a list of marks, with the pointer and the place in words", () => {
    const document = {
      info: { "x-gap": gap("q1") },
      paths: {
        "/api/v4/outsource_cases/{id}/status": {
          patch: { responses: { "200": { "x-gap": [gap("q2", "a"), gap("q3", "b")] } } },
        },
      },
    };
    expect(collectGaps(document)).toEqual([
      { quote: "q1", choice: "c", pointer: "/info", where: "document info" },
      {
        quote: "q2",
        choice: "a",
        pointer: "/paths/~1api~1v4~1outsource_cases~1{id}~1status/patch/responses/200",
        where: "PATCH /api/v4/outsource_cases/{id}/status › responses › 200",
      },
      {
        quote: "q3",
        choice: "b",
        pointer: "/paths/~1api~1v4~1outsource_cases~1{id}~1status/patch/responses/200",
        where: "PATCH /api/v4/outsource_cases/{id}/status › responses › 200",
      },
    ]);
  });

  it("names a malformed mark by its pointer", () => {
    expect(() =>
      collectGaps({ components: { schemas: { A: { "x-gap": { quote: "only a quote" } } } } }),
    ).toThrow("x-gap at /components/schemas/A must be {quote, choice} or a list of them");
  });

  it.each([
    [["components", "schemas", "EddCase", "properties", "status"], "schema EddCase › status"],
    [["components", "securitySchemes", "SvcDate"], "security scheme SvcDate"],
    [["servers", "0"], "server 1"],
    [["webhooks", "edd-case-completed", "post"], "POST webhook edd-case-completed"],
    [
      ["channels", "workflowCase", "messages", "caseCompleted"],
      "channel workflowCase › messages › caseCompleted",
    ],
    [["operations", "sendBiometricEvent"], "operation sendBiometricEvent"],
  ])("describes %j as %s", (tokens, words) => {
    expect(describePointer({ servers: [] }, tokens)).toBe(words);
  });

  it("finds every mark of both contracts: one per x-gap key, more for lists", () => {
    for (const file of ["generated/openapi.json", "generated/asyncapi.json"]) {
      const text = readFileSync(fromRoot(file), "utf8");
      const marks = collectGaps(JSON.parse(text));
      const keys = text.match(/"x-gap":/g)?.length ?? 0;
      expect(keys, file).toBeGreaterThan(0);
      expect(new Set(marks.map((m) => m.pointer)).size, file).toBe(keys);
      for (const mark of marks) expect(pointerTokens(mark.pointer).length, mark.pointer).toBeGreaterThan(0);
    }
  });
});

describe("the gaps page", () => {
  it("groups marks by the document's words, in order of first appearance", () => {
    const marks = collectGaps(loadOpenApi());
    const groups = groupByQuote(marks);
    expect(groups.reduce((n, g) => n + g.marks.length, 0)).toBe(marks.length);
    expect(new Set(groups.map((g) => g.quote)).size).toBe(groups.length);
    expect(groups[0]?.quote).toBe(marks[0]?.quote);
  });

  it("shows each quote once, every choice, and says when a contract is not built", () => {
    const html = renderGapsContent([
      {
        title: "A",
        file: "a.json",
        marks: [
          { quote: "Same <words>", choice: "first", pointer: "/x", where: "x" },
          { quote: "Same <words>", choice: "second", pointer: "/y", where: "y" },
        ],
      },
      { title: "B", file: "b.json", marks: null },
    ]);
    expect(html.match(/<blockquote>Same &lt;words&gt;<\/blockquote>/g)).toHaveLength(1);
    expect(html).toContain("first");
    expect(html).toContain("second");
    expect(html).toContain("all 2 marks");
    expect(html).toContain("<code>b.json</code> does not exist yet");
  });
});
