// Defects found by a second hostile review of the CLI: each case failed before its fix.
import { spawnSync } from "node:child_process";
import { createWriteStream, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { XMLValidator } from "fast-xml-parser";
import { afterAll, describe, expect, it } from "vitest";
import { toNdjson } from "../../bench/corpus.js";
import {
  MAX_RECORDING_NESTING,
  MAX_RECORDING_VALUES,
  MEASURE_ABOVE,
} from "../../conformance/traffic/json-bounds.js";
import { fromRoot, ROOT } from "../../scripts/lib/paths.js";
import { hasStackTrace, tempDir } from "./support/cli.js";
import { example } from "./support/exchanges.js";
import { runMain, toHar, toHarEntry } from "./support/in-process.js";

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FORMATS = ["text", "json", "junit", "sarif", "github"] as const;
let counter = 0;

function write(name: string, text: string | Buffer): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** The one line an unusable input gives: exit 2, the file and the reason, nothing on stdout. */
function expectInputError(run: { status: number; stdout: string; stderr: string }, where: RegExp): void {
  expect(run.stderr).toMatch(where);
  expect(run.status).toBe(2);
  expect(run.stdout).toBe("");
  expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
  expect(hasStackTrace(run.stderr)).toBe(false);
}

/** JSON text costly to parse out of proportion to its bytes, and above the size that is measured. */
function costlyJson(shape: "deep" | "many", extra: number): string {
  // A long string member first, so that even a shallow text is large enough to be measured.
  const pad = `{"pad": "${"x".repeat(MEASURE_ABOVE)}", "v": `;
  if (shape === "deep") {
    const depth = MAX_RECORDING_NESTING + 1 + extra;
    return `${pad}${"[".repeat(depth)}${"]".repeat(depth)}}`;
  }
  return `${pad}[${"0,".repeat(MAX_RECORDING_VALUES + extra)}0]}`;
}

const REASON = {
  deep: new RegExp(`nests more than ${MAX_RECORDING_NESTING} levels deep`),
  many: /holds more than 4,000,000 JSON values/,
};

describe("JSON is measured before it is parsed: memory is bounded in bytes", () => {
  // Where a recording's JSON is parsed: an NDJSON line, a HAR entry, the HAR around the entries (the
  // scanner's own stack), and a recorded body's text.
  const PLACES = ["ndjson line", "har entry", "har outside entries", "body text"] as const;

  function recordingWith(place: (typeof PLACES)[number], json: string): { file: string; where: RegExp } {
    const name = `costly-${counter++}`;
    if (place === "ndjson line") {
      const line = toNdjson(example("getEddCase")).replace(/^\{/, `{"x": ${json}, `);
      return { file: write(`${name}.ndjson`, `${line}\n`), where: /\.ndjson: line 1: / };
    }
    const entry = toHarEntry(example("getEddCase")) as { response: { content: { text: string } } };
    if (place === "body text") {
      entry.response.content.text = json;
      return { file: write(`${name}.har`, toHar([entry])), where: /\.har: entry 0: / };
    }
    if (place === "har entry") {
      const text = toHar([entry]).replace('{"request":', `{"_custom": ${json}, "request":`);
      return { file: write(`${name}.har`, text), where: /\.har: entry 0: / };
    }
    const text = toHar([entry]).replace('{"log":{', `{"log":{"_custom": ${json}, `);
    return { file: write(`${name}.har`, text), where: /\.har: / };
  }

  it("refuses nesting and value counts out of proportion, wherever they are, in every format", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...PLACES),
        fc.constantFrom("deep" as const, "many" as const),
        fc.nat({ max: 3_000 }),
        fc.constantFrom(...FORMATS),
        async (place, shape, extra, format) => {
          // Outside the entries only nesting costs memory (nothing there is parsed).
          const kind = place === "har outside entries" ? "deep" : shape;
          const { file, where } = recordingWith(place, costlyJson(kind, extra));
          expectInputError(await runMain(["check", file, "--format", format]), where);
          expectInputError(await runMain(["check", file, "--format", format]), REASON[kind]);
          rmSync(file);
        },
      ),
      { numRuns: 16, seed: 31 },
    );
  });

  it("still checks a large recording whose JSON is within the limits", async () => {
    const x = example("getEddCase");
    const line = toNdjson(x).replace(/^\{/, `{"x": {"pad": "${"x".repeat(MEASURE_ABOVE)}", "v": [[[1]]]}, `);
    const run = await runMain(["check", write("large-ok.ndjson", `${line}\n`)]);
    expect(run.stderr).toBe("");
    expect(run.stdout).toMatch(/1 checked: 1 passed/);
  });

  // The defect itself: a 40 MB body of brackets took gigabytes and ended the process (no exit 2, a
  // V8 trace). A heap of 256 MB is far more than a bounded read of it needs.
  it("ends with exit 2 and one line, in a process with a small heap", () => {
    const depth = 20_000_000;
    const entry = toHarEntry(example("getEddCase")) as { response: { content: { text: string } } };
    entry.response.content.text = "\u0000";
    const [head, tail] = toHar([entry]).split("\\u0000") as [string, string];
    const file = join(dir, "brackets.har");
    writeFileSync(file, `${head}${"[".repeat(depth)}${"]".repeat(depth)}${tail}`);
    const run = spawnSync(
      process.execPath,
      ["--max-old-space-size=256", "--import", "tsx", fromRoot("conformance/cli.ts"), "check", file],
      { cwd: ROOT, encoding: "utf8" },
    );
    expectInputError(
      { status: run.status ?? -1, stdout: run.stdout, stderr: run.stderr },
      /brackets\.har: entry 0: nests more than 1000 levels deep/,
    );
  });
});

describe("a pipe is read once (process substitution, a FIFO)", () => {
  it("detects the format of a named pipe from its stream, not by reading the file twice", async () => {
    for (const [name, text, expected] of [
      ["har-pipe", toHar([toHarEntry(example("getEddCase"))]), /1 checked: 1 passed/],
      ["ndjson-pipe", `${toNdjson(example("getEddCase"))}\n`, /1 checked: 1 passed/],
    ] as const) {
      const fifo = join(dir, name);
      expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
      // The writer's open waits for the reader, as a shell's `<(…)` does.
      const writer = createWriteStream(fifo);
      writer.end(text);
      const run = await runMain(["check", fifo]);
      expect(run.stderr).toBe("");
      expect(run.stdout).toMatch(expected);
      expect(run.status).toBe(0);
    }
  });

  it("reads a HAR from bash's <(…) as a process", () => {
    const har = write("for-pipe.har", toHar([toHarEntry(example("getEddCase"))]));
    const child = spawnSync(
      "bash",
      [
        "-c",
        `"$0" --import tsx "$1" check <(cat "$2")`,
        process.execPath,
        fromRoot("conformance/cli.ts"),
        har,
      ],
      { cwd: ROOT, encoding: "utf8" },
    );
    expect(child.stderr).toBe("");
    expect(child.stdout).toMatch(/1 checked: 1 passed/);
    expect(child.status).toBe(0);
  });
});

/** XML 1.0's Char production: what a document may hold at all, even as a character reference. */
const XML_CHARS = /^[\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u;

describe("the JUnit report is XML whatever the names it shows", () => {
  it("for any file name (control characters, ]]>, surrogates)", async () => {
    // Without its credentials: the report has a failure to show too.
    const x = example("createPepCheck");
    x.request.headers = {};
    const source = toNdjson(x);
    await fc.assert(
      fc.asyncProperty(
        fc
          .string({ unit: "binary", minLength: 1, maxLength: 12 })
          .map((s) => s.replace(/[/\0]/g, "_"))
          .map((s) => `${s}]]>\u0001\u001b\ud800`),
        async (name) => {
          const file = join(dir, `j${counter++}${name}.ndjson`);
          writeFileSync(file, `${source}\n`);
          const run = await runMain(["check", file, "--format", "junit"]);
          expect(run.status).toBe(1);
          expect(XML_CHARS.test(run.stdout)).toBe(true);
          expect(XMLValidator.validate(run.stdout)).toBe(true);
          rmSync(file);
        },
      ),
      { numRuns: 25, seed: 5 },
    );
  });
});

describe("--jobs takes digits only", () => {
  it.each(["0x2", " 2", "2.0", "1e1", "+2", "0", "-1", ""])("refuses %j", async (jobs) => {
    const file = write("jobs.ndjson", `${toNdjson(example("getEddCase"))}\n`);
    const run = await runMain(["check", file, file, `--jobs=${jobs}`]);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe("");
    // An empty value is a flag without its value, as for every flag.
    expect(run.stderr).toMatch(
      jobs === "" ? /^idv-conformance: --jobs needs a value\n/ : /--jobs must be a whole number/,
    );
  });
});
