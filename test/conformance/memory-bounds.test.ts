// Memory is bounded in bytes per entry and per worker: an entry over the limit is reported, never read
// whole (nor held whole while it streams past); --jobs starts at most one worker a core; a worker that
// runs out of its heap ends its own file with a violation, and the run and its report go on.
import { spawnSync } from "node:child_process";
import { closeSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { toNdjson } from "../../bench/corpus.js";
import type { EntryResult } from "../../conformance/findings/findings.js";
import { MAX_ENTRY_BYTES } from "../../conformance/traffic/har-stream.js";
import { checkInWorkers } from "../../conformance/run/worker-pool.js";
import { fromRoot, ROOT } from "../../scripts/lib/paths.js";
import { tempDir } from "./support/cli.js";
import { example } from "./support/exchanges.js";
import { runMain, toHar, toHarEntry } from "./support/in-process.js";

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const saved = { ...process.env };
afterEach(() => {
  for (const name of ["IDV_CONFORMANCE_MAX_ENTRY_BYTES", "IDV_CONFORMANCE_WORKER_HEAP_MB"]) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

const MIB = 1024 * 1024;

/**
 * Run support/oom-child.ts with workers limited to 16 MiB and give what it printed. A run that Node
 * ended with V8's own heap-limit fatal (a worker's out-of-memory taking the process with it, which
 * Node does now and then, more often on Node 26 under a loaded machine) is run again, up to six times
 * in all: that is Node's limit, not the suite's handling, which is what the assertions judge.
 */
function inChild(args: string[]): unknown {
  for (let attempt = 1; ; attempt++) {
    const run = spawnSync(
      process.execPath,
      ["--import", "tsx", fromRoot("test/conformance/support/oom-child.ts"), ...args],
      { cwd: ROOT, encoding: "utf8", env: { ...process.env, IDV_CONFORMANCE_WORKER_HEAP_MB: "16" } },
    );
    if (run.status === 0) return JSON.parse(run.stdout);
    if (attempt < 6 && run.stderr.includes("Reached heap limit")) continue;
    throw new Error(`the child exited ${run.status}: ${run.stderr.slice(0, 2000)}`);
  }
}
const TOO_LARGE = (limit: string) =>
  `the entry is larger than ${limit}; it was not read, so nothing of it was checked`;

/**
 * A HAR whose first entry's response text is `bytes` long, followed by a conforming entry, written a
 * MiB at a time from one buffer (the test holds no more of it than that).
 */
function writeHarWithLargeEntry(name: string, bytes: number): string {
  const file = join(dir, name);
  const entry = toHarEntry(example("getEddCase")) as { response: { content: { text: string } } };
  entry.response.content.text = "\u0000";
  const [head, tail] = toHar([entry, toHarEntry(example("getEddCase"))]).split("\\u0000") as [string, string];
  const fd = openSync(file, "w");
  writeSync(fd, head);
  const chunk = Buffer.alloc(MIB, 0x61);
  for (let left = bytes; left > 0; left -= MIB) writeSync(fd, chunk, 0, Math.min(MIB, left));
  writeSync(fd, tail);
  closeSync(fd);
  return file;
}

describe("an entry larger than the limit", () => {
  it("is reported as too large in a process whose heap is smaller than the entry, with bounded memory", () => {
    const entryBytes = 256 * MIB;
    const file = writeHarWithLargeEntry("large-entry.har", entryBytes);
    // The limit is lowered so that the bound shows; the peak is then far below the entry's size.
    const run = spawnSync(
      process.execPath,
      [
        "--max-old-space-size=48",
        "--import",
        "tsx",
        fromRoot("test/conformance/support/rss-cli.ts"),
        "check",
        file,
        "--format",
        "json",
      ],
      { cwd: ROOT, encoding: "utf8", env: { ...process.env, IDV_CONFORMANCE_MAX_ENTRY_BYTES: String(MIB) } },
    );
    const [rssLine, ...rest] = run.stderr.trim().split("\n").reverse();
    expect(rest).toEqual([]);
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout) as { summary: object; entries: EntryResult[] };
    expect(report.summary).toEqual({ entries: 2, passed: 2, failed: 0, warnings: 1 });
    expect(report.entries[0]).toMatchObject({
      index: 0,
      ok: true,
      warnings: [{ in: "entry", check: "entry_readable", pointer: "", message: TOO_LARGE("1 MiB") }],
    });
    expect(report.entries[1]).toMatchObject({ index: 1, ok: true, operationId: "getEddCase", warnings: [] });
    // Held whole, the entry alone would take 256 MiB of memory.
    const peakKib = Number(/^maxRSS (\d+)$/.exec(rssLine ?? "")?.[1]);
    expect(peakKib).toBeGreaterThan(0);
    expect(peakKib * 1024).toBeLessThan(entryBytes);
  });

  it("is the same for an NDJSON line, and the limit can only be lowered", async () => {
    const large = example("getEddCase");
    if (large.response) large.response.body = { kind: "text", text: "x".repeat(3 * MIB) };
    const file = join(dir, "long-line.ndjson");
    writeFileSync(file, [large, example("getEddCase")].map(toNdjson).join("\n"));
    process.env.IDV_CONFORMANCE_MAX_ENTRY_BYTES = String(2 * MIB);
    const run = await runMain(["check", file, "--format", "json"]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const entries = (JSON.parse(run.stdout) as { entries: EntryResult[] }).entries;
    expect(entries.map((e) => [e.index, e.line, e.warnings.map((w) => w.message)])).toEqual([
      [0, 1, [TOO_LARGE("2 MiB")]],
      [1, 2, []],
    ]);
    // A value above the default (or not digits) leaves the default in force: the line is read and
    // judged (its body is not JSON).
    for (const value of [String(MAX_ENTRY_BYTES * 4), "1e9", "-1", "0"]) {
      process.env.IDV_CONFORMANCE_MAX_ENTRY_BYTES = value;
      const again = await runMain(["check", file, "--format", "json"]);
      expect(again.status).toBe(1);
      const first = (JSON.parse(again.stdout) as { entries: EntryResult[] }).entries[0];
      expect(first?.violations.map((v) => v.check)).toEqual(["response_body_schema"]);
      expect(first?.warnings).toEqual([]);
    }
  });
});

describe("an entry larger than the limit, in recorded deliveries", () => {
  it("is reported the same by `webhooks`", async () => {
    const file = join(dir, "deliveries.ndjson");
    const big = JSON.stringify({ request: { method: "POST", url: "/hook", body: "x".repeat(3 * MIB) } });
    writeFileSync(file, `${big}\n`);
    process.env.IDV_CONFORMANCE_MAX_ENTRY_BYTES = String(2 * MIB);
    const run = await runMain(["webhooks", file, "--format", "json"]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const entries = (JSON.parse(run.stdout) as { entries: EntryResult[] }).entries;
    expect(entries.map((e) => [e.index, e.line, e.operationId, e.warnings.map((w) => w.message)])).toEqual([
      [0, 1, null, [TOO_LARGE("2 MiB")]],
    ]);
  });
});

describe("--jobs", () => {
  it("is capped at the number of cores, said once on stderr, with the same report", async () => {
    const files = [0, 1, 2].map((i) => {
      const file = join(dir, `jobs-${i}.ndjson`);
      writeFileSync(file, `${toNdjson(example("getEddCase"))}\n`);
      return file;
    });
    const cores = availableParallelism();
    const serial = await runMain(["check", ...files, "--format", "json"]);
    const capped = await runMain(["check", ...files, "--format", "json", "--jobs", "1000"]);
    expect(capped.stderr).toBe(
      `idv-conformance: --jobs 1000 is more than the ${cores} cores; using ${cores}\n`,
    );
    expect(capped.status).toBe(0);
    expect(capped.stdout).toBe(serial.stdout);
  });

  it("starts at most one worker a core, however many are asked for", async () => {
    const file = join(dir, "one.ndjson");
    writeFileSync(file, `${toNdjson(example("getEddCase"))}\n`);
    let started = 0;
    const results: EntryResult[] = [];
    const files = Array.from({ length: availableParallelism() + 2 }, () => file);
    for await (const r of checkInWorkers(1000, files, { command: "check", basePaths: [] }, () => started++))
      results.push(r);
    expect(started).toBe(availableParallelism());
    expect(results).toHaveLength(files.length);
  });
});

describe("a worker that runs out of memory", () => {
  it("ends its file with a violation, and the other files are checked and reported", async () => {
    // 4.5 MB of empty arrays: under the entry limit, over a 16 MiB heap once parsed, a small
    // allocation at a time.
    const values = JSON.stringify(Array.from({ length: 1_500_000 }, () => []));
    const heavy = toHarEntry(example("getEddCase")) as { response: { content: { text: string } } };
    heavy.response.content.text = values;
    const heavyFile = join(dir, "heavy.har");
    // The heavy entry alone: whether an entry before it is reported depends on when the worker last
    // posted its results, which no test can fix.
    writeFileSync(heavyFile, toHar([heavy]));
    const small = join(dir, "small.ndjson");
    writeFileSync(small, `${toNdjson(example("getEddCase"))}\n`);
    const { stops, results } = inChild(["pool", small, heavyFile, small, small]) as {
      stops: string[];
      results: EntryResult[];
    };
    const reason = "the worker checking it ran out of memory (its heap limit is 16 MiB)";
    expect(stops).toEqual([`${heavyFile}: ${reason}`]);
    expect(results.map((r) => [r.file, r.index, r.ok, r.violations.map((v) => v.message)])).toEqual([
      [small, 0, true, []],
      [
        heavyFile,
        0,
        false,
        [`the file was not checked to its end, and nothing of it from this entry on is reported: ${reason}`],
      ],
      [small, 0, true, []],
      [small, 0, true, []],
    ]);
    expect(results[1]?.violations[0]).toMatchObject({ in: "entry", check: "entry_readable" });
  }, 60_000);

  it("is one line on stderr and one violation in the report, which is written whole (the CLI)", async () => {
    const values = JSON.stringify(Array.from({ length: 1_500_000 }, () => []));
    const heavy = toHarEntry(example("getEddCase")) as { response: { content: { text: string } } };
    heavy.response.content.text = values;
    const heavyFile = join(dir, "heavy-cli.har");
    writeFileSync(heavyFile, toHar([heavy]));
    const small = join(dir, "small-cli.ndjson");
    writeFileSync(small, `${toNdjson(example("getEddCase"))}\n`);
    const out = join(dir, "report.json");
    const run = inChild([
      "cli",
      "check",
      small,
      heavyFile,
      small,
      "--jobs",
      "2",
      "--format",
      "json",
      "--out",
      out,
    ]) as {
      status: number;
      stderr: string;
    };
    expect(run.stderr).toBe(
      `idv-conformance: ${heavyFile}: not checked to its end: the worker checking it ran out of memory (its heap limit is 16 MiB)\n`,
    );
    expect(run.status).toBe(1);
    const report = JSON.parse(readFileSync(out, "utf8")) as { summary: object; entries: EntryResult[] };
    expect(report.summary).toEqual({ entries: 3, passed: 2, failed: 1, warnings: 0 });
    expect(report.entries.map((e) => [e.file, e.ok])).toEqual([
      [small, true],
      [heavyFile, false],
      [small, true],
    ]);
  }, 60_000);
});
