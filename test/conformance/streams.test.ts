// Standard input and worker threads: `zcat traffic.ndjson.gz | idv-conformance check -`, and --jobs N
// keeping N workers for the whole run.
import { readFileSync, rmSync } from "node:fs";
import { gzipSync, gunzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import type { EntryResult } from "../../conformance/findings/findings.js";
import { checkInWorkers } from "../../conformance/run/worker-pool.js";
import { fixture, runCli, tempDir, writeNdjson } from "./support/cli.js";
import { example } from "./support/exchanges.js";

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("standard input", () => {
  it("reads NDJSON from - as a file, and names standard input on unusable input", () => {
    const broken = example("createPepCheck");
    delete broken.request.headers["svc-date"];
    const file = writeNdjson(dir, "stdin.ndjson", [example("getEddCase"), broken]);
    const piped = gunzipSync(gzipSync(Buffer.from(`\ufeff${readFileSync(file, "utf8")}`)));
    const run = runCli(["check", "-", "--format", "json"], piped);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report.summary).toEqual({ entries: 2, passed: 1, failed: 1, warnings: 0 });
    expect(report.entries[1]).toMatchObject({ file: "-", line: 2, operationId: "createPepCheck" });

    const bad = runCli(["check", "-"], `${readFileSync(file, "utf8")}{"request": nul\n`);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^idv-conformance: standard input: line 3: is not valid JSON/);
  });
});

describe("--jobs", () => {
  it("keeps N workers for the whole run and gives results in file order", async () => {
    const files = Array.from({ length: 5 }, (_, i) =>
      writeNdjson(
        dir,
        `job-${i}.ndjson`,
        Array.from({ length: i + 1 }, () => example("getEddCase")),
      ),
    );
    files.push(fixture("conforming.har"));
    let started = 0;
    const results: EntryResult[] = [];
    for await (const r of checkInWorkers(2, files, { command: "check", basePaths: [] }, () => started++))
      results.push(r);
    expect(started).toBe(2);
    expect(results.map((r) => r.file)).toEqual([
      ...files.slice(0, 5).flatMap((f, i) => Array(i + 1).fill(f)),
      ...Array(4).fill(files[5]),
    ]);
    expect(results.every((r) => r.ok)).toBe(true);
  });
});
