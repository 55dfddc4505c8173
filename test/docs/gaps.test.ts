import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { collectGaps, describePointer, pointerTokens } from "../../scripts/docs/gaps.js";
import { groupGaps, renderGapsContent } from "../../scripts/docs/gaps-page.js";
import { renderWebhooksContent } from "../../scripts/docs/webhooks-page.js";
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
  const openapi = loadOpenApi();
  const asyncapi = JSON.parse(readFileSync(fromRoot("generated/asyncapi.json"), "utf8"));

  it("puts every mark in exactly one group, and each operation's marks under a link to that operation", () => {
    const marks = collectGaps(openapi);
    const groups = groupGaps({ title: "A", file: "a.json", kind: "openapi", document: openapi, marks });
    expect(groups.flatMap((g) => g.marks).sort((a, b) => a.pointer.localeCompare(b.pointer))).toEqual(
      [...marks].sort((a, b) => a.pointer.localeCompare(b.pointer)),
    );
    for (const group of groups) {
      for (const mark of group.marks) {
        const [head, path, method] = pointerTokens(mark.pointer);
        if (head !== "paths" || !path || !method) continue;
        const op = openapi.paths[path][method];
        const tag = String(op.tags[0])
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, "-");
        expect(group.links[0]?.href, mark.pointer).toBe(`api.html#/${tag}/${op.operationId.toLowerCase()}`);
      }
    }
    // A shared schema's marks link to the operations that use it.
    const eddCase = groups.find((g) => g.title === "Schema EddCase");
    expect(eddCase?.links.map((l) => l.href)).toContain("api.html#/edd-cases/geteddcase");
  });

  it("links every webhook mark to an anchor that the webhooks page has", () => {
    const marks = collectGaps(asyncapi);
    const page = renderWebhooksContent(asyncapi);
    const groups = groupGaps({ title: "W", file: "w.json", kind: "asyncapi", document: asyncapi, marks });
    expect(groups.reduce((n, g) => n + g.marks.length, 0)).toBe(marks.length);
    for (const link of groups.flatMap((g) => g.links)) {
      const anchor = link.href.split("#")[1];
      if (anchor) expect(page, link.href).toContain(`id="${anchor}"`);
    }
  });

  it("escapes the document's words, shows every choice, and says when a contract is not built", () => {
    const html = renderGapsContent([
      {
        title: "A",
        file: "a.json",
        kind: "openapi",
        document: { paths: { "/x": { get: { operationId: "getX", tags: ["T"] } } } },
        marks: [
          { quote: "Same <words>", choice: "first", pointer: "/paths/~1x/get", where: "GET /x" },
          {
            quote: "Same <words>",
            choice: "second",
            pointer: "/paths/~1x/get/responses",
            where: "GET /x › responses",
          },
        ],
      },
      { title: "B", file: "b.json", kind: "asyncapi", document: null, marks: null },
    ]);
    expect(html.match(/<q>Same &lt;words&gt;<\/q>/g)).toHaveLength(2);
    expect(html).not.toContain("<words>");
    expect(html).toContain('<a class="gap-place" href="api.html#/t/getx">GET /x</a>');
    expect(html).toContain("first");
    expect(html).toContain("second");
    expect(html).toContain("2 of 2 marks");
    expect(html).toContain("<code>b.json</code> does not exist yet");
  });
});
