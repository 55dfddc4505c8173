// Reports carry text they did not write: a traffic file's name (from the command line), a coverage
// report's contract title, version and locations (from another CI shard), a reporter's title, and a
// recording's `_idvWithheld` messages. Whatever those hold, no report format writes a control
// character (but its own newlines), a line the GitHub Actions runner reads as a workflow command
// (other than the github format's own), Markdown that renders in the job summary, or any word of a
// recorded message.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { EntryResult } from "../../conformance/findings/findings.js";
import { createReporter, type ReportFormat } from "../../conformance/findings/reporters.js";
import { runAll } from "../../conformance/run/run.js";
import { stderrNotices } from "../../conformance/run/notices.js";
import { openConformanceChecker } from "../../conformance/run/open-checker.js";
import { exchangeFromHar } from "../../conformance/traffic/read-traffic.js";
import { loadOpenApi } from "../support/contract.js";
import { CANARIES, canary, containsCanary } from "../support/hostile.js";
import { tempDir } from "./support/cli.js";
import { Capture, runMain } from "./support/in-process.js";

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const checker = await openConformanceChecker({ spec: loadOpenApi() });

/** What a name, a title or a message may hold to command a terminal, a runner or a Markdown renderer. */
const NASTY = [
  "x\n::error title=pwn::owned",
  "\u001b[2J\u001b]0;title\u0007",
  "::warning::x",
  " \u3000::error::y",
  "\t::notice::z",
  "a\r\n::add-mask::z",
  "\r::error::cr",
  "##[error]legacy",
  "\u0085::error::nel",
  "a\u2028::error::b",
  "%0A::error::percent",
  "[x](https://evil.example/)",
  "![i](https://evil.example/i.png)",
  "<img src=x onerror=alert(1)>",
  "www.evil.example",
  "\u202eevil",
  "\ud800",
  "\u009b31m",
];

/** Every nasty piece at once: each run starts with it. */
const EVERY = NASTY.join("");

/** Hostile text: nasty pieces and arbitrary code points, joined. */
const hostile = (): fc.Arbitrary<string> =>
  fc
    .array(fc.oneof(fc.constantFrom(...NASTY), fc.string({ unit: "binary", maxLength: 8 })), {
      minLength: 1,
      maxLength: 4,
    })
    .map((parts) => parts.join(""));

/** The host a recorded message links to: only a recorded word can name it. */
const RECORDED = "recorded.example";

/** A recorded message: hostile, with a canary, a Markdown link and an image in it. */
const recordedMessage = (): fc.Arbitrary<string> =>
  fc
    .tuple(hostile(), canary())
    .map(([h, c]) => `${h}${c} [see](https://${RECORDED}/${c}) <img src="https://${RECORDED}/${c}">${h}`);

/** The github format's own command: a finding's annotation, its properties escaped. */
const COMMAND = /^::(error|warning) (file=[^,:]*,)?(line=\d+,)?title=[^,:]*::/;

/** Output as the runner and a terminal read it: the property every format must keep. */
function expectClean(output: string, commands = false): void {
  expect(output.replace(/\n/g, "")).not.toMatch(/[\p{Cc}\u2028\u2029]/u);
  expect(containsCanary(output)).toBe(false);
  expect(output).not.toContain(RECORDED);
  for (const line of output.split("\n")) {
    if (commands && line.startsWith("::")) expect(line).toMatch(COMMAND);
    else {
      expect(line).not.toMatch(/^\s*::/u);
      expect(line).not.toContain("##[");
    }
  }
}

/** A HAR entry that matches an operation, with a withheld status and body whose messages are hostile. */
function withheldEntry(messages: string[]) {
  return {
    startedDateTime: "2026-11-22T09:30:00.000Z",
    time: 1,
    request: {
      method: "GET",
      url: "http://x/api/v4/outsource_cases/1",
      headers: [],
      httpVersion: "HTTP/1.1",
    },
    response: { status: 404, headers: [], content: { size: 0, mimeType: "" } },
    _idvWithheld: {
      locations: [
        { in: "response.status", pointer: "" },
        { in: "request.body", pointer: "" },
      ],
      violations: messages.map((message) => ({
        in: "response.status",
        check: "status_code_documented",
        pointer: "",
        message,
      })),
      warnings: messages.map((message) => ({
        in: "request.body",
        check: "request_body_schema",
        pointer: "",
        message,
      })),
    },
  };
}

const FORMATS: ReportFormat[] = ["text", "json", "junit", "sarif", "github"];

describe("every report format, given hostile file names, titles and withheld messages", () => {
  it("writes no control character, no workflow command but its own, no Markdown and no recorded word", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        hostile(),
        hostile(),
        fc.array(recordedMessage(), { minLength: 1, maxLength: 3 }),
        async (file, title, messages) => {
          // The entry as `check` reads it from a file of that name, and one that matches nothing.
          const matched = checker.checkExchange(exchangeFromHar(withheldEntry(messages), 0), file);
          const unmatched: EntryResult = { ...matched, index: 1, line: 2, operationId: null, ok: false };
          for (const format of FORMATS) {
            const summaryFile = join(dir, `summary-${n++}.md`);
            const reporter = await createReporter(format, title, `${title} (none)`, {
              stepSummary: summaryFile,
              coverage: () => ({ kinds: [{ kind: title, covered: 1, total: 2 }] }),
            });
            const out = new Capture();
            const summary = await runAll(
              (async function* () {
                yield matched;
                yield unmatched;
              })(),
              reporter,
            );
            await reporter.finish(summary, out);
            expectClean(out.text, format === "github");
            if (format === "github") {
              const markdown = readFileSync(summaryFile, "utf8");
              expectClean(markdown);
              // Nothing renders as a link, an image, HTML or an entity: each opener is escaped.
              expect(markdown).not.toMatch(/(?<!\\)[[\]<>&]/);
            }
          }
          // The notice of what a gateway log does not record, on stderr.
          let said = "";
          stderrNotices((line) => {
            said += line;
            return true;
          })({ file, format: "kong", part: "requestBody" });
          expectClean(said);
        },
      ),
      { numRuns: 30, seed: 43, examples: [[EVERY, EVERY, [`${EVERY}${CANARIES[0]}`]]] },
    );
  });
});

describe("the command line, given hostile file names", () => {
  /** A file name the file system takes: no `/`, no NUL, no lone surrogate, at most 200 bytes. */
  const onDisk = (name: string) => {
    let safe = "";
    for (const c of name.replace(/[/\0]/g, "_").replace(/[\uD800-\uDFFF]/g, "_")) {
      if (Buffer.byteLength(safe + c) > 200) break;
      safe += c;
    }
    return safe;
  };
  const sub = join(dir, "cli");
  beforeAll(() => mkdirSync(sub));

  it("checks, notes and refuses in every format without a control character or a command of the name's", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        hostile(),
        fc.array(recordedMessage(), { minLength: 1, maxLength: 2 }),
        async (name, messages) => {
          const base = join(sub, `${n++}-${onDisk(name)}`);
          const har = `${base}.har`;
          writeFileSync(har, JSON.stringify({ log: { version: "1.2", entries: [withheldEntry(messages)] } }));
          for (const format of FORMATS) {
            const summary = `${base}-${format}.md`;
            vi.stubEnv("GITHUB_STEP_SUMMARY", summary);
            const run = await runMain(["check", har, "--format", format]).finally(() => vi.unstubAllEnvs());
            expect(run.status).toBe(1);
            expectClean(run.stdout, format === "github");
            expectClean(run.stderr);
            if (format === "github") expectClean(readFileSync(summary, "utf8"));
          }
          // A gateway log's notice (on the process's stderr), under the github format too.
          const kong = `${base}.kong`;
          writeFileSync(
            kong,
            '{"request":{"method":"GET","uri":"/"},"response":{"status":200},"route":{}}\n',
          );
          const written: string[] = [];
          const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
            written.push(String(chunk));
            return true;
          });
          try {
            const run = await runMain(["check", kong, "--format", "github"]);
            expectClean(run.stdout, true);
          } finally {
            spy.mockRestore();
          }
          expect(written.join("")).toMatch(/note: /);
          expectClean(written.join(""));
          // A file that cannot be read: exit 2, one line naming it.
          const missing = await runMain(["check", `${base}.missing.ndjson`, "--format", "github"]);
          expect(missing.status).toBe(2);
          expect(missing.stderr.split("\n")).toHaveLength(2);
          expectClean(missing.stdout + missing.stderr);
        },
      ),
      { numRuns: 10, seed: 43, examples: [[EVERY, [`${EVERY}${CANARIES[0]}`]]] },
    );
  });
});

describe("coverage merge, given reports with hostile titles, versions, locations and names", () => {
  let report: Record<string, any>;
  beforeAll(async () => {
    const har = join(dir, "coverage-source.har");
    writeFileSync(har, JSON.stringify({ log: { version: "1.2", entries: [withheldEntry(["x"])] } }));
    const file = join(dir, "coverage-source.json");
    await runMain(["check", har, "--coverage", file]);
    report = JSON.parse(readFileSync(file, "utf8"));
  });

  /** The report with hostile words in it: each kind has one more unseen location, its counts kept true. */
  function hostileReport(title: string, version: string, word: string) {
    const r = structuredClone(report);
    r.contract.title = title;
    r.contract.version = version;
    for (const [kind, k] of Object.entries<any>(r.kinds)) {
      k.unseen.push(
        kind === "statuses" ? `/paths/${word}/${word}/responses/${word}` : `/paths/${word}/${word}`,
      );
      k.total++;
    }
    return r;
  }

  it("prints them as text, on stdout and stderr, in both formats and when the reports disagree", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(hostile(), hostile(), hostile(), hostile(), async (title, version, word, name) => {
        const file = join(dir, `${n++}-${name.replace(/[/\0\uD800-\uDFFF]/g, "_").slice(0, 60)}.json`);
        writeFileSync(file, JSON.stringify(hostileReport(title, version, word)));
        for (const format of ["text", "json"]) {
          const run = await runMain([
            "coverage",
            "merge",
            file,
            "--format",
            format,
            "--min-coverage",
            "statuses=100",
          ]);
          expect(run.status).toBe(1);
          expectClean(run.stdout);
          expectClean(run.stderr);
          const out = `${file}.${format}.out`;
          const toFile = await runMain(["coverage", "merge", file, "--format", format, "--out", out]);
          expect(toFile.status).toBe(0);
          expectClean(toFile.stdout + toFile.stderr);
          expectClean(readFileSync(out, "utf8"));
        }
        // Another contract's version: refused with one line naming both.
        const other = `${file}.other.json`;
        writeFileSync(other, JSON.stringify(hostileReport(title, `${version}${word}.1`, word)));
        const refused = await runMain(["coverage", "merge", file, other]);
        expect(refused.status).toBe(2);
        expect(refused.stderr.split("\n")).toHaveLength(2);
        expectClean(refused.stdout + refused.stderr);
      }),
      { numRuns: 25, seed: 43, examples: [[EVERY, EVERY, EVERY, EVERY]] },
    );
  });
});

describe("the escapes, one per format", () => {
  it("show each control character as printable text, and stay the same when shown again", async () => {
    const { jsonText, markdownText, shownText, xmlText } =
      await import("../../conformance/findings/shown.js");
    expect(shownText("a\nb\r\tc\u001b[2J\u0085\u2028\u202e")).toBe("a\\nb\\r\\tc\\x1b[2J\\x85\\u2028\\u202e");
    expect(shownText(" \u3000::error::x ##[error]y")).toBe(" \u3000\\x3a:error::x \\x23#[error]y");
    expect(shownText(shownText("::x\n\u001b##[a"))).toBe(shownText("::x\n\u001b##[a"));
    expect(markdownText("[a](b) <img> &amp; www.x @y")).toBe("\\[a\\](b) \\<img\\> \\&amp; www\\.x \\@y");
    expect(xmlText('a\nb<"\u0085')).toBe("a\\nb&lt;&quot;\\x85");
    const value = { s: "\u0085\u2028##[x" };
    expect(jsonText(value)).toBe('{"s":"\\u0085\\u2028\\u0023#[x"}');
    expect(JSON.parse(jsonText(value))).toEqual(value);
  });
});
