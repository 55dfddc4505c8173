// The text report closes with a summary per operation and per check.
import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir, writeNdjson } from "./support/cli.js";
import { bodyJson, example, jsonText } from "./support/exchanges.js";
import { runMain } from "./support/in-process.js";

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("text report", () => {
  it("ends with a table per operation and per check", async () => {
    const noDate = example("createPepCheck");
    delete noDate.request.headers["svc-date"];
    const extra = example("createPepCheck");
    if (extra.response)
      extra.response.body = jsonText({ ...bodyJson(extra.response.body), risk_band: "low" });
    const file = writeNdjson(dir, "summary.ndjson", [example("getEddCase"), noDate, noDate, extra]);
    const run = await runMain(["check", file]);
    expect(run.status).toBe(1);
    const lines = run.stdout.trimEnd().split("\n");
    const at = lines.findIndex((l) => /^Operation +checked +failed +warnings$/.test(l));
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at + 1, at + 3)).toEqual([
      expect.stringMatching(/^createPepCheck +3 +2 +1$/),
      expect.stringMatching(/^getEddCase +1 +0 +0$/),
    ]);
    const checks = lines.findIndex((l) => /^Check +violations +warnings$/.test(l));
    expect(lines.slice(checks + 1, checks + 3)).toEqual([
      expect.stringMatching(/^auth_headers_present +2 +0$/),
      expect.stringMatching(/^response_body_schema +0 +1$/),
    ]);
    expect(lines.at(-1)).toBe("4 checked: 2 passed, 2 failed, 1 warning");
  });

  it("names an entry too large to read by where it is alone, with nothing after it", async () => {
    const big = example("getEddCase");
    if (big.response) big.response.body = jsonText({ padding: "x".repeat(4096) });
    const file = writeNdjson(dir, "too-large.ndjson", [big, example("getEddCase")]);
    process.env.IDV_CONFORMANCE_MAX_ENTRY_BYTES = "2048";
    try {
      for (const format of ["text", "junit"]) {
        const run = await runMain(["check", file, "--format", format]);
        expect(run.stdout).toMatch(/line 1\b/);
        expect(run.stdout).not.toMatch(/line 1 +(\n|"|$)/m);
      }
    } finally {
      delete process.env.IDV_CONFORMANCE_MAX_ENTRY_BYTES;
    }
  });

  it("shows no progress line for a run of a moment, even on a terminal", async () => {
    const file = writeNdjson(dir, "short.ndjson", [example("getEddCase")]);
    const run = await runMain(["check", file], true);
    expect(run.stderr).toBe("");
    expect(run.stdout).toMatch(/1 checked: 1 passed/);
  });
});
