// Defects found by trying the CLI as a hostile recording would: each case failed before its fix.
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { toNdjson } from "../../bench/corpus.js";
import type { Exchange } from "../../conformance/traffic/exchange.js";
import {
  assertPrototypesUntouched,
  CANARIES,
  containsCanary,
  PROTOTYPE_KEYS,
  prototypeSnapshot,
} from "../support/hostile.js";
import { hasStackTrace, runCli, tempDir } from "./support/cli.js";
import { example } from "./support/exchanges.js";
import { runMain, toHar, toHarEntry } from "./support/in-process.js";

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let before: string;
beforeAll(() => {
  before = prototypeSnapshot();
});

const FORMATS = ["text", "json", "junit", "sarif", "github"] as const;
const good = () => toNdjson(example("getEddCase"));

function write(name: string, text: string | Buffer): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** Lines of good exchanges with `bad` at line `at` (from 1). */
function withBadLine(name: string, at: number, bad: string): string {
  const lines = Array.from({ length: at + 2 }, good);
  lines[at - 1] = bad;
  return write(name, `${lines.join("\n")}\n`);
}

/** The one line an unusable input gives: the file and the line or entry, never a stack trace. */
function expectInputError(run: { status: number; stdout: string; stderr: string }, where: RegExp): void {
  expect(run.status).toBe(2);
  expect(run.stdout).toBe("");
  expect(run.stderr).toMatch(where);
  expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
  expect(hasStackTrace(run.stderr)).toBe(false);
}

describe("stream errors end the run with exit 2 and one line (issue 12, item 4)", () => {
  const notJson = () => withBadLine("line-501.ndjson", 501, '{"request": {"method": "GET", "url"');
  const nullEntry = () => withBadLine("null.ndjson", 3, "null");
  const badBase64 = () => {
    const x = JSON.parse(good());
    x.response.body = "not base64!";
    x.response.bodyEncoding = "base64";
    return withBadLine("base64.ndjson", 2, JSON.stringify(x));
  };

  it.each(FORMATS)("in the %s format, after good entries", async (format) => {
    for (const [file, where] of [
      [notJson(), /^idv-conformance: .*line-501\.ndjson: line 501: is not valid JSON/],
      [nullEntry(), /^idv-conformance: .*null\.ndjson: line 3: is not a JSON object/],
      [
        badBase64(),
        /^idv-conformance: .*base64\.ndjson: line 2: response\.body is marked base64 but is not base64/,
      ],
    ] as const) {
      const out = join(dir, `report-${format}`);
      expectInputError(await runMain(["check", file, "--format", format]), where);
      // With --out, nothing half-written is left behind to be read as a report.
      expectInputError(await runMain(["check", file, "--format", format, "--out", out]), where);
      expect(existsSync(out)).toBe(false);
    }
  });

  // The crash was an 'error' event after the run had failed: only a real process shows its exit status.
  it.each(["json", "junit"])("as a process, in the %s format", (format) => {
    expectInputError(runCli(["check", notJson(), "--format", format]), /line 501: is not valid JSON/);
  });

  it("names the entry of a HAR whose entry is not an object", async () => {
    const file = write("null-entry.har", toHar([toHarEntry(example("getEddCase")), null]));
    expectInputError(
      await runMain(["check", file, "--format", "json"]),
      /null-entry\.har: entry 1: is not an object/,
    );
  });
});

describe("prototype keys in a recording are only names (issue 12, item 5)", () => {
  it.each(FORMATS)("in a query string, a HAR queryString and header names (%s)", async (format) => {
    const lines: string[] = [];
    const entries: unknown[] = [];
    for (const key of PROTOTYPE_KEYS) {
      const x = example("getEddCase");
      x.request.path = `${x.request.path}?${encodeURIComponent(key)}=x&${encodeURIComponent(key)}=y`;
      const line = JSON.parse(toNdjson(x));
      line.request.query = JSON.parse(`{${JSON.stringify(key)}: ["a"]}`);
      line.request.headers = JSON.parse(
        `{${JSON.stringify(key)}: "v", "svc-api-key": "k", "svc-secret": "s"}`,
      );
      line.response.headers = JSON.parse(
        `{${JSON.stringify(key)}: {"x": 1}, "content-type": "application/json"}`,
      );
      lines.push(JSON.stringify(line));
      const entry = toHarEntry(x) as { request: { queryString: unknown[]; headers: unknown[] } };
      entry.request.queryString.push({ name: key, value: "x" });
      entry.request.headers.push({ name: key, value: "v" });
      entries.push(entry);
    }
    for (const file of [write("proto.ndjson", `${lines.join("\n")}\n`), write("proto.har", toHar(entries))]) {
      const run = await runMain(["check", file, "--format", format]);
      expect(run.stderr).toBe("");
      expect([0, 1]).toContain(run.status);
      assertPrototypesUntouched(before);
    }
  });
});

describe("reports never repeat a recorded value (issue 12, item 6)", () => {
  /** Exchanges carrying every canary where a report could be tempted to show it. */
  function canaryExchanges(): Exchange[] {
    const out: Exchange[] = [];
    for (const canary of CANARIES) {
      const id = encodeURIComponent(canary);
      const inPath = example("getEddCase");
      inPath.request.path = inPath.request.path.replace(/\/\d+$/, `/${id}`);
      out.push(inPath);
      const unknownRoute = example("getEddCase");
      unknownRoute.request.path = `/${id}/api/v4/${id}/${id}`;
      unknownRoute.request.method = canary;
      out.push(unknownRoute);
      const prefixed = example("getEddCase");
      prefixed.request.path = `/${id}${prefixed.request.path}`;
      out.push(prefixed);
      const media = example("createPepCheck");
      media.request.headers["content-type"] = `application/${canary}`;
      if (media.response) media.response.headers["content-type"] = `text/${canary}; charset=${canary}`;
      out.push(media);
      const member = example("createPepCheck");
      if (member.request.body?.kind === "text") {
        const body = JSON.parse(member.request.body.text);
        body[canary] = { [canary]: canary };
        body.reference = { [canary]: 1 };
        member.request.body.text = JSON.stringify(body);
      }
      if (member.response?.body?.kind === "text") {
        const body = JSON.parse(member.response.body.text);
        body[canary] = canary;
        member.response.body.text = JSON.stringify(body);
      }
      out.push(member);
    }
    return out;
  }

  it.each(FORMATS)("in the %s format", async (format) => {
    const file = write("canary.ndjson", `${canaryExchanges().map(toNdjson).join("\n")}\n`);
    const out = join(dir, `canary.${format}`);
    // GitHub's job summary is a report too.
    const summary = join(dir, `canary-summary.${format}.md`);
    writeFileSync(summary, "");
    vi.stubEnv("GITHUB_STEP_SUMMARY", summary);
    const run = await runMain(["check", file, "--format", format, "--out", out]).finally(() =>
      vi.unstubAllEnvs(),
    );
    expect(run.status).toBe(1);
    const report = readFileSync(out, "utf8") + readFileSync(summary, "utf8");
    if (format === "github") expect(readFileSync(summary, "utf8")).toMatch(/does not conform/);
    // The findings are there, named by the contract's words.
    expect(report).toMatch(/outsource_cases\/\{id\}|no path of the contract/);
    expect(containsCanary(report + run.stdout + run.stderr)).toBe(false);
  });

  it("in a multipart upload's part and file names", async () => {
    const x = example("getEddCase");
    const entry = toHarEntry(x) as { request: Record<string, unknown> };
    entry.request.method = "POST";
    entry.request.url = "https://idv.example.com/api/v4/outsource_cases/7/upload";
    entry.request.postData = {
      mimeType: "multipart/form-data",
      params: CANARIES.map((c) => ({ name: c, fileName: `${c}.${c}`, contentType: `image/${c}`, value: c })),
    };
    const file = write("parts.har", toHar([entry]));
    for (const format of FORMATS) {
      const run = await runMain(["check", file, "--format", format]);
      expect(run.status).toBe(1);
      expect(containsCanary(run.stdout + run.stderr)).toBe(false);
    }
  });
});

describe("bytes and media types read strictly (issue 12, item 9)", () => {
  const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

  it("accepts a UTF-8 byte order mark before a HAR or NDJSON file", async () => {
    const har = write(
      "bom.har",
      Buffer.concat([BOM, Buffer.from(toHar([toHarEntry(example("getEddCase"))]))]),
    );
    const ndjson = write("bom.ndjson", Buffer.concat([BOM, Buffer.from(`${good()}\n`)]));
    const detected = write(
      "bom-detected",
      Buffer.concat([BOM, Buffer.from(toHar([toHarEntry(example("getEddCase"))]))]),
    );
    for (const file of [har, ndjson, detected]) {
      const run = await runMain(["check", file]);
      expect(run.stderr).toBe("");
      expect(run.stdout).toMatch(/1 checked: 1 passed/);
      expect(run.status).toBe(0);
    }
  });

  it("does not take application/json-evil or application/+json for JSON", async () => {
    for (const type of ["application/json-evil", "application/+json", "application/jsonx"]) {
      const x = example("createPepCheck");
      x.request.headers["content-type"] = type;
      if (x.response) x.response.headers["content-type"] = type;
      const run = await runMain(["check", write("evil.ndjson", `${toNdjson(x)}\n`), "--format", "json"]);
      const [entry] = JSON.parse(run.stdout).entries;
      const checks = entry.violations.map((v: { check: string }) => v.check);
      expect(checks).toContain("request_content_type");
      expect(checks).toContain("response_content_type");
    }
  });

  it("reports a JSON body whose bytes are not UTF-8 as a violation", async () => {
    const x = example("createPepCheck");
    if (x.response?.body?.kind === "text") {
      const bytes = Buffer.from(JSON.stringify({ ...JSON.parse(x.response.body.text), marker: "ZZZZ" }));
      bytes[bytes.indexOf("ZZZZ")] = 0xff;
      x.response.body = { kind: "bytes", bytes };
    }
    const run = await runMain(["check", write("latin.ndjson", `${toNdjson(x)}\n`), "--format", "json"]);
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stdout).entries[0].violations).toContainEqual(
      expect.objectContaining({
        check: "response_body_schema",
        message: expect.stringMatching(/not valid JSON/),
      }),
    );
  });

  it("reports a JSON body text holding a lone surrogate (bytes that were not UTF-8) as a violation", async () => {
    const x = example("createPepCheck");
    if (x.response?.body?.kind === "text")
      // The raw character, not JSON's \ud800 escape (which JSON.stringify would write).
      x.response.body.text = x.response.body.text.replace(/^\{/, '{"marker": "\ud800", ');
    const run = await runMain(["check", write("surrogate.ndjson", `${toNdjson(x)}\n`), "--format", "json"]);
    expect(JSON.parse(run.stdout).entries[0].violations).toContainEqual(
      expect.objectContaining({
        check: "response_body_schema",
        message: expect.stringMatching(/not valid JSON/),
      }),
    );
  });

  it("refuses a file whose own bytes are not UTF-8, naming the line", async () => {
    const bad = Buffer.from(good());
    bad[bad.indexOf("https")] = 0xc0;
    const file = write("bytes.ndjson", Buffer.concat([Buffer.from(`${good()}\n`), bad, Buffer.from("\n")]));
    expectInputError(await runMain(["check", file]), /bytes\.ndjson: line 2: is not valid UTF-8/);
    const har = write(
      "bytes.har",
      Buffer.concat([Buffer.from(toHar([]).slice(0, -3)), Buffer.from([0xff]), Buffer.from("]}}")]),
    );
    expectInputError(await runMain(["check", har]), /bytes\.har: entry 0: is not valid UTF-8/);
  });
});

describe("a contract given with --spec is input too", () => {
  it("does not follow a $ref into Object.prototype, and names the file", async () => {
    const spec = JSON.parse(readFileSync(join(process.cwd(), "generated/openapi.json"), "utf8"));
    spec.paths["/api/v4/pep_checks"].post.requestBody = { $ref: "#/constructor/prototype" };
    const file = write("proto-ref.json", JSON.stringify(spec));
    const har = write("one.har", toHar([toHarEntry(example("getEddCase"))]));
    expectInputError(
      await runMain(["check", "--spec", file, har]),
      /proto-ref\.json: cannot be used as the contract: \$ref #\/constructor\/prototype points nowhere/,
    );
    assertPrototypesUntouched(before);
  });
});
