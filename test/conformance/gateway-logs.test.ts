// Gateway access logs (Kong file-log/http-log, Nginx and Apache JSON) as `check` reads them: made from
// the contract's own examples, they pass; what they do not record is never a violation and is said once
// a file; what they do record is judged; any line, however hostile, is an exchange or an error naming it.
import { spawnSync } from "node:child_process";
import { createWriteStream, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import type { EntryResult } from "../../conformance/findings/findings.js";
import type { Exchange } from "../../conformance/traffic/exchange.js";
import type { UnrecordedNotice } from "../../conformance/traffic/gateway-logs.js";
import { InputError } from "../../conformance/traffic/input-error.js";
import { detectFormat, readExchanges, type TrafficFormat } from "../../conformance/traffic/read-traffic.js";
import { fromRoot, ROOT } from "../../scripts/lib/paths.js";
import { runCli, tempDir } from "./support/cli.js";
import { checker, examples } from "./support/exchanges.js";

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The request target of an exchange: its path and query, as a gateway logs `request_uri`. */
function target(exchange: Exchange): string {
  const query = new URLSearchParams();
  for (const [name, values] of Object.entries(exchange.request.query))
    for (const v of values) query.append(name, v);
  const text = query.toString();
  return text ? `${exchange.request.path}?${text}` : exchange.request.path;
}

const bodyText = (body: Exchange["request"]["body"]) => (body?.kind === "text" ? body.text : undefined);

/** A Kong file-log entry: headers, no bodies (Kong logs none), the members Kong adds around them. */
const kongLine = (x: Exchange) =>
  JSON.stringify({
    request: {
      method: x.request.method,
      uri: target(x),
      url: `http://gateway.internal:8000${target(x)}`,
      querystring: {},
      headers: x.request.headers,
      size: 120,
    },
    response: { status: x.response?.status, headers: x.response?.headers ?? {}, size: 300 },
    route: { id: "r1", paths: ["/"] },
    latencies: { request: 12, kong: 1, proxy: 11 },
    client_ip: "192.0.2.1",
    started_at: 1_700_000_000_000,
  });

/** An Nginx JSON access log line (`escape=json`): no headers, no bodies. */
const nginxLine = (x: Exchange) =>
  JSON.stringify({
    time_iso8601: "2026-11-27T09:00:00+00:00",
    remote_addr: "192.0.2.1",
    request: `${x.request.method} ${target(x)} HTTP/1.1`,
    request_uri: target(x),
    status: String(x.response?.status),
    body_bytes_sent: "120",
    upstream_response_time: "0.012",
  });

/** An Apache JSON access log line: the method, the URI (`request_uri` would make it Nginx, as drift reads it), the status. */
const apacheLine = (x: Exchange) =>
  JSON.stringify({
    vhost: "idv.example.com",
    request_method: x.request.method,
    uri: target(x),
    response_status: x.response?.status,
  });

/** An Nginx line with `request` and `response` objects carrying headers and bodies (as drift reads them). */
const nginxNestedLine = (x: Exchange) =>
  JSON.stringify({
    time_iso8601: "2026-11-27T09:00:00+00:00",
    request: {
      method: x.request.method,
      request_uri: target(x),
      headers: x.request.headers,
      body: bodyText(x.request.body) ?? "",
    },
    response: {
      status: x.response?.status,
      headers: x.response?.headers,
      body: bodyText(x.response?.body) ?? "",
    },
  });

/** The examples a text log can carry faithfully: JSON or empty bodies. */
const textExamples = examples.filter(
  (e) =>
    e.exchange.response &&
    (e.exchange.request.body === undefined || e.exchange.request.body.kind === "text") &&
    (e.exchange.response.body === undefined || e.exchange.response.body.kind === "text"),
);

function write(name: string, lines: string[]): string {
  const file = join(dir, name);
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

async function checkAll(file: string, format?: TrafficFormat) {
  const notices: UnrecordedNotice[] = [];
  const results: EntryResult[] = [];
  for await (const result of checker.checkFile(file, format, (n) => notices.push(n))) results.push(result);
  return { results, notices };
}

const failing = (results: EntryResult[]) =>
  results.filter((r) => !r.ok).map((r) => [r.operationId, r.violations.map((v) => v.message)]);

describe("gateway logs made from the contract's examples", () => {
  it("has examples of every kind to make them from", () => {
    expect(textExamples.length).toBeGreaterThan(20);
    expect(textExamples.some((e) => e.exchange.request.body !== undefined)).toBe(true);
  });

  it.each([
    ["kong.log", kongLine, "kong", ["requestBody", "responseBody"]],
    [
      "access.log",
      nginxLine,
      "nginx-json",
      ["requestHeaders", "requestBody", "responseHeaders", "responseBody"],
    ],
    [
      "apache.log",
      apacheLine,
      "apache-json",
      ["requestHeaders", "requestBody", "responseHeaders", "responseBody"],
    ],
    ["nested.log", nginxNestedLine, "nginx-json", []],
  ] as const)("%s is detected, passes, and says once what it lacks", async (name, line, format, parts) => {
    const file = write(
      name,
      textExamples.map((e) => line(e.exchange)),
    );
    expect(await detectFormat(file)).toBe(format);
    const { results, notices } = await checkAll(file);
    expect(results).toHaveLength(textExamples.length);
    expect(failing(results)).toEqual([]);
    // Nothing unrecorded becomes a finding, not even a warning on an entry.
    expect(results.flatMap((r) => r.warnings.map((w) => w.message))).toEqual([]);
    expect(notices).toEqual(parts.map((part) => ({ file, format, part })));
  });

  it("judges what is recorded: status, route, method, query, and bodies when a log has them", async () => {
    const [first] = textExamples;
    if (!first) throw new Error("no example");
    const undocumented = structuredClone(first.exchange);
    if (undocumented.response) undocumented.response.status = 418;
    const unknownPath = structuredClone(first.exchange);
    unknownPath.request.path = "/no/such/path";
    const withBody = textExamples.find((e) => bodyText(e.exchange.request.body)?.startsWith("{"));
    if (!withBody) throw new Error("no example with a JSON request body");
    const brokenBody = structuredClone(withBody.exchange);
    brokenBody.request.body = { kind: "text", text: "{}" };
    const kong = await checkAll(write("bad-kong.log", [kongLine(undocumented), kongLine(unknownPath)]));
    expect(kong.results.map((r) => r.violations.map((v) => v.check))).toEqual([
      ["status_code_documented"],
      ["route_known"],
    ]);
    const nested = await checkAll(write("bad-nested.log", [nginxNestedLine(brokenBody)]));
    expect(nested.results[0]?.ok).toBe(false);
    expect(nested.results[0]?.violations.map((v) => v.check)).toContain("request_body_schema");
  });
});

describe("the CLI", () => {
  it("notes once a run what logs do not record, on stderr, outside the report and --warnings-as-errors", () => {
    const lines = textExamples.slice(0, 5).map((e) => e.exchange);
    const first = write("first-access.log", lines.map(nginxLine));
    const second = write("second-access.log", lines.map(nginxLine));
    const stdin = lines.map(nginxLine).join("\n");
    const run = runCli(["check", first, second, "-", "--format", "json", "--warnings-as-errors"], stdin);
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout) as { summary: object };
    expect(report.summary).toEqual({ entries: 15, passed: 15, failed: 0, warnings: 0 });
    const notes = run.stderr.trim().split("\n");
    expect(notes).toEqual(
      ["request headers", "request bodies", "response headers", "response bodies"].map(
        (part) =>
          `idv-conformance: note: ${first} (Nginx JSON access log) does not record ${part}: they are not checked (not a violation)`,
      ),
    );
  });
});

describe("the CLI with --jobs", () => {
  it("notes once a run even when worker threads read the logs", () => {
    const lines = textExamples.slice(0, 3).map((e) => kongLine(e.exchange));
    const files = ["a-kong.log", "b-kong.log", "c-kong.log"].map((name) => write(name, lines));
    const run = runCli(["check", ...files, "--jobs", "2", "--format", "json"]);
    expect(run.status).toBe(0);
    expect((JSON.parse(run.stdout) as { summary: object }).summary).toMatchObject({ entries: 9, failed: 0 });
    const notes = run.stderr
      .trim()
      .split("\n")
      .filter((line) => !line.includes("more than the"));
    expect(notes.map((line) => line.replace(/^.* does not record /, ""))).toEqual([
      "request bodies: they are not checked (not a violation)",
      "response bodies: they are not checked (not a violation)",
    ]);
  });
});

describe("detection", () => {
  const kong = kongLine(textExamples[0]?.exchange as Exchange);
  const nginx = nginxLine(textExamples[0]?.exchange as Exchange);
  const apache = apacheLine(textExamples[0]?.exchange as Exchange);
  const ours = JSON.stringify({ request: { method: "GET", url: "/a" }, response: { status: 200 } });
  it.each([
    ["traffic.har", '{"log":{"entries":[]}}', "har"],
    ["recorded.json", '\n  {"log": {"entries": []}}', "har"],
    ["gateway.kong", ours, "kong"],
    ["kong.jsonl", kong, "kong"],
    ["file-log.ndjson", kong, "kong"],
    ["routed.log", '{"request":{"method":"GET","uri":"/"},"response":{"status":200},"route":{}}', "kong"],
    ["access.log", nginx, "nginx-json"],
    // Named as a gateway log: its lines decide. This suite's own exchanges stay NDJSON; a line that
    // is not one, and marks no log, is read as the name says (as drift reads it).
    ["access-nginx.ndjson", ours, "ndjson"],
    [
      "access-nginx.ndjson",
      '{"request":{"method":"GET","request_uri":"/"},"response":{"status":200}}',
      "nginx-json",
    ],
    [
      "suite-exchange-with-marker.ndjson",
      JSON.stringify({ request: { url: "/" }, time_iso8601: "x" }),
      "nginx-json",
    ],
    ["access.json", '{"remote_addr":"192.0.2.1","request":"GET / HTTP/1.1","status":200}', "nginx-json"],
    ["apache.log", apache, "apache-json"],
    ["site-apache.ndjson", ours, "ndjson"],
    ["site-apache.ndjson", '{"request":{"method":"GET"},"response":{"status":200}}', "apache-json"],
    [
      "vhost.log",
      '{"vhost":"a","request_method":"GET","request_uri":"/","response_status":200}',
      "nginx-json",
    ],
    ["plain.log", '{"vhost":"a","request_method":"GET","response_status":200}', "apache-json"],
    ["traffic.ndjson", ours, "ndjson"],
    ["traffic.jsonl", ours, "ndjson"],
    ["no-extension", ours, "ndjson"],
    [
      "body-says-remote_addr.ndjson",
      JSON.stringify({ request: { method: "GET", url: "/", body: '"remote_addr"' } }),
      "ndjson",
    ],
  ] as const)("%s holding %s is %s", async (name, text, format) => {
    expect(await detectFormat(write(name, [text]))).toBe(format);
  });

  it("reads a .ndjson file whose first line is longer than the head as this suite's NDJSON, whatever its body says", async () => {
    const upload = "A".repeat(70 * 1024);
    const line = JSON.stringify({
      request: { method: "POST", url: "/", body: { remote_addr: "x", latencies: 1, file: upload } },
      response: { status: 200 },
    });
    expect(await detectFormat(write("long-first-line.ndjson", [line]))).toBe("ndjson");
    expect(await detectFormat(write("long-first-line.jsonl", [line]))).toBe("ndjson");
  });
});

describe("hostile lines", () => {
  const formats = ["kong", "nginx-json", "apache-json"] as const;
  const member = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.constantFrom("GET", "/v1/x?a=1", "200", "-", 200, -1),
  );
  const entry = fc.dictionary(
    fc.constantFrom(
      "request",
      "response",
      "req",
      "res",
      "http",
      "method",
      "request_uri",
      "status",
      "headers",
      "body",
      "url",
      "uri",
      "__proto__",
      "route",
      "latencies",
      "request_method",
      "response_status",
    ),
    fc.oneof(
      member,
      fc.dictionary(
        fc.constantFrom(
          "method",
          "url",
          "uri",
          "status",
          "headers",
          "body",
          "path",
          "statusCode",
          "__proto__",
        ),
        member,
      ),
    ),
  );
  const line = fc.oneof(
    entry.map((e) => JSON.stringify(e)),
    fc.string(),
    fc.jsonValue().map((v) => JSON.stringify(v)),
  );

  it("never crash: every line is an exchange, or an InputError naming its line", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...formats),
        fc.array(line, { minLength: 1, maxLength: 6 }),
        async (format, lines) => {
          const file = write(`hostile-${run++}.log`, lines);
          let read = 0;
          try {
            for await (const result of checker.checkFile(file, format)) {
              expect(typeof result.ok).toBe("boolean");
              read++;
            }
          } catch (error) {
            expect(error).toBeInstanceOf(InputError);
            expect((error as InputError).where).toMatch(
              new RegExp(`^${file.replace(/[.\\/]/g, "\\$&")}: line \\d+$`),
            );
            const lineNumber = Number(/line (\d+)$/.exec((error as InputError).where)?.[1]);
            expect(lineNumber).toBeGreaterThan(read);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it("names the line of an entry it cannot read, in the suite's words", async () => {
    const file = write("broken.log", [
      nginxLine(textExamples[0]?.exchange as Exchange),
      '{"remote_addr":"x","status":"200"}',
    ]);
    await expect(async () => {
      for await (const _ of readExchanges(file, "nginx-json"));
    }).rejects.toThrow(`${file}: line 2: has no request method`);
  });

  it("says a log written as a JSON array is read one object a line", async () => {
    const entry = JSON.parse(kongLine(textExamples[0]?.exchange as Exchange)) as unknown;
    const file = write("batch.log", [JSON.stringify([entry, entry])]);
    expect(await detectFormat(file)).toBe("kong");
    await expect(async () => {
      for await (const _ of readExchanges(file));
    }).rejects.toThrow(`${file}: line 1: is a JSON array; a gateway log is read one JSON object a line`);
  });
});

describe("memory", () => {
  it("stays flat in the file's size: a log larger than the heap is checked in bounded memory", async () => {
    const file = join(dir, "large-kong.log");
    const out = createWriteStream(file);
    const base = JSON.parse(kongLine(textExamples[0]?.exchange as Exchange)) as Record<string, unknown>;
    // Each line carries 128 KiB that Kong could log (a consumer's tags): 1,024 lines are 128 MiB.
    const line = `${JSON.stringify({ ...base, consumer: { tags: ["x".repeat(128 * 1024)] } })}\n`;
    let written = 0;
    for (let i = 0; i < 1024; i++) {
      written += line.length;
      if (!out.write(line)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
    }
    await new Promise<void>((resolve) => out.end(() => resolve()));
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
      { cwd: ROOT, encoding: "utf8" },
    );
    const [rssLine] = run.stderr.trim().split("\n").reverse();
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout) as { summary: { entries: number; failed: number } };
    expect(report.summary).toMatchObject({ entries: 1024, failed: 0 });
    const peakKib = Number(/^maxRSS (\d+)$/.exec(rssLine ?? "")?.[1]);
    expect(peakKib).toBeGreaterThan(0);
    expect(peakKib * 1024).toBeLessThan(written);
  });
});
