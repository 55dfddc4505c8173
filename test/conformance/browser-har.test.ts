/**
 * HAR files written by browsers: one recorded here by Playwright driving Debian's Chromium against the
 * sandbox (a navigation, page fetches, an aborted request, requests another origin's page makes that
 * the browser blocks for CORS), and Firefox and Chrome DevTools exports built the way those exporters
 * write them (support/browser-hars.ts). Every entry's verdict is asserted.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Exchange } from "../../conformance/traffic/exchange.js";
import type { EntryResult } from "../../conformance/findings/findings.js";
import { type RunningSandbox, launchSandbox } from "../../sandbox/start.js";
import { listen, type RunningServer } from "../../src/server/static-files.js";
import { chromeDevToolsHar, firefoxHar, type Seen } from "./support/browser-hars.js";
import { tempDir } from "./support/cli.js";
import { example } from "./support/exchanges.js";
import { runMain } from "./support/in-process.js";

const CHROMIUM = "/usr/bin/chromium";
const CREDENTIALS = { apiKey: "sbx-browser-key", secret: "sbx-browser-secret" };
const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An entry's verdict in short: the operation, pass or fail, and the checks that spoke. */
interface Verdict {
  operationId: string | null;
  ok: boolean;
  violations: string[];
  warnings: string[];
}

/** Check a HAR file with the CLI (JSON report) and give each entry's verdict, with the exit status. */
async function verdicts(har: object | string, name: string): Promise<{ status: number; entries: Verdict[] }> {
  const file = join(dir, name);
  if (typeof har === "string") {
    if (har !== file) writeFileSync(file, har);
  } else writeFileSync(file, JSON.stringify(har, null, 2));
  const run = await runMain(["check", file, "--format", "json"]);
  expect(run.stderr).toBe("");
  const report = JSON.parse(run.stdout) as { entries: EntryResult[] };
  return {
    status: run.status,
    entries: report.entries.map((e) => ({
      operationId: e.operationId,
      ok: e.ok,
      violations: e.violations.map((f) => f.check),
      warnings: e.warnings.map((f) => `${f.check}: ${f.message}`),
    })),
  };
}

const NO_ANSWER = (status: number) =>
  `status_code_documented: the browser recorded no answer (status ${status}: the request failed, was blocked or was aborted); the exchange was not checked`;
const NOT_KEPT = "response_body_schema: the recorder did not keep the body; it was not checked";
const REQUEST_NOT_KEPT = "request_body_schema: the recorder did not keep the body; it was not checked";

describe("a HAR recorded by Playwright driving Chromium against the sandbox", () => {
  let sandbox: RunningSandbox;
  let other: RunningServer;
  let harFile: string;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`Chromium is not installed at ${CHROMIUM}`);
    sandbox = await launchSandbox({ port: 0, credentials: CREDENTIALS, log: () => undefined });
    // Another origin: its page's requests to the sandbox are cross-origin, and the sandbox sends no CORS headers.
    const site = join(dir, "other-origin");
    mkdirSync(site);
    writeFileSync(join(site, "index.html"), "<!doctype html><title>another origin</title><p>hello</p>");
    other = await listen(site, 0);
    harFile = join(dir, "chromium.har");
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    try {
      const context = await browser.newContext({ recordHar: { path: harFile, content: "embed" } });
      const page = await context.newPage();
      // A navigation with the v2 credentials (Playwright adds them as a navigation's headers).
      await page.setExtraHTTPHeaders({ "Svc-API-Key": CREDENTIALS.apiKey, "Svc-Secret": CREDENTIALS.secret });
      await page.goto(`${sandbox.url}/api/v2/manual_eidv/TX-404/assets/pep_watchlist`);
      await page.setExtraHTTPHeaders({});
      // One request is held unanswered so that the page's abort always comes first.
      await page.route("**/api/v4/outsource_cases/2", () => undefined);
      const pep = example("createPepCheck").request.body;
      const pepText = pep?.kind === "text" ? pep.text : "{}";
      // Page fetches, signed in the page (WebCrypto HMAC-SHA256 over Svc-Date and the body). Passed as
      // text: the test's compiled functions may reference helpers the page does not have.
      const statuses = await page.evaluate(`(async ({ key, secret, pepText }) => {
        const hex = (bytes) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
        const signed = async (body) => {
          const date = new Date().toISOString();
          const k = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
          const mac = await crypto.subtle.sign("HMAC", k, new TextEncoder().encode(date + body));
          return { "Svc-API-Key": key, "Svc-Date": date, "Svc-Signature": hex(mac) };
        };
        const out = [];
        out.push((await fetch("/api/v4/outsource_cases/1", { headers: await signed("") })).status);
        out.push((await fetch("/api/v4/pep_checks", { method: "POST", headers: { ...(await signed(pepText)), "Content-Type": "application/json" }, body: pepText })).status);
        const form = new FormData();
        form.append("file", new Blob(["%PDF-1.4\\n%%EOF\\n"], { type: "application/pdf" }), "deed.pdf");
        out.push((await fetch("/api/v4/outsource_cases/1/upload", { method: "POST", headers: await signed(""), body: form })).status);
        const abort = new AbortController();
        const held = fetch("/api/v4/outsource_cases/2", { headers: await signed(""), signal: abort.signal });
        setTimeout(() => abort.abort(), 200);
        out.push(await held.then((r) => r.status, (e) => e.name));
        return out;
      })(${JSON.stringify({ key: CREDENTIALS.apiKey, secret: CREDENTIALS.secret, pepText })})`);
      expect(statuses).toEqual([404, 400, 400, "AbortError"]);
      // From another origin: a request with a header CORS does not list needs a preflight the sandbox
      // does not answer for; a simple one is sent, but its answer has no Access-Control-Allow-Origin.
      await page.goto(`${other.url}/index.html`);
      const blocked = await page.evaluate(`(async ({ url, key }) => [
        await fetch(url + "/api/v4/outsource_cases/1", { headers: { "Svc-API-Key": key } }).then((r) => r.status, (e) => e.name),
        await fetch(url + "/api/v4/outsource_cases/3").then((r) => r.status, (e) => e.name),
      ])(${JSON.stringify({ url: sandbox.url, key: CREDENTIALS.apiKey })})`);
      expect(blocked).toEqual(["TypeError", "TypeError"]);
      await context.close();
    } finally {
      await browser.close();
    }
  }, 120_000);

  afterAll(async () => {
    await other?.close();
    await sandbox?.close();
  });

  it("judges every answer of the service and reports each request that got none as a warning", async () => {
    // The recording is what Playwright writes for requests that got no answer: status -1, _failureText.
    const raw = JSON.parse(readFileSync(harFile, "utf8")) as {
      log: { version: string; entries: { response: { status: number; _failureText?: string } }[] };
    };
    expect(raw.log.version).toBe("1.2");
    expect(
      raw.log.entries.filter((e) => e.response.status === -1).map((e) => e.response._failureText),
    ).toEqual(["net::ERR_ABORTED", "net::ERR_FAILED", "net::ERR_FAILED"]);
    const { status, entries } = await verdicts(harFile, "chromium.har");
    expect(entries).toEqual([
      // The navigation: an answer of the service (the record does not exist), documented.
      { operationId: "getManualPepWatchlist", ok: true, violations: [], warnings: [] },
      { operationId: "getEddCase", ok: true, violations: [], warnings: [] },
      // Sent from a page with the credentials: the service answers CRED_AT_RISK, as documented.
      { operationId: "createPepCheck", ok: true, violations: [], warnings: [] },
      // An upload from a FormData holding a Blob: recorded whole (requests are intercepted once a
      // route is set), and sent from a page, so CRED_AT_RISK.
      { operationId: "uploadEddCaseFile", ok: true, violations: [], warnings: [] },
      // Aborted by the page (Playwright writes status -1 and _failureText net::ERR_ABORTED).
      { operationId: "getEddCase", ok: true, violations: [], warnings: [NO_ANSWER(-1)] },
      // The other origin's page: not an operation of the contract.
      { operationId: null, ok: false, violations: ["route_known"], warnings: [] },
      // Blocked for CORS (net::ERR_FAILED): what the browser saw, not an answer of the service.
      { operationId: "getEddCase", ok: true, violations: [], warnings: [NO_ANSWER(-1)] },
      { operationId: "getEddCase", ok: true, violations: [], warnings: [NO_ANSWER(-1)] },
    ]);
    expect(status).toBe(1);
  });
});

/** What a browser saw of an example exchange, as a request to the sandbox's default address. */
function seen(exchange: Exchange, headerCase = true): Seen {
  const title = (name: string) => (headerCase ? name.replace(/(^|-)([a-z])/g, (m) => m.toUpperCase()) : name);
  const text = (body: Exchange["request"]["body"]) => (body?.kind === "text" ? body.text : undefined);
  const { request, response } = exchange;
  return {
    method: request.method,
    url: `http://127.0.0.1:4010${request.path}`,
    requestHeaders: Object.entries(request.headers).map(([k, v]) => [title(k), v]),
    postText: text(request.body),
    response: response && {
      status: response.status,
      statusText: "OK",
      headers: Object.entries(response.headers).map(([k, v]) => [title(k), v]),
      mimeType: response.headers["content-type"] ?? "",
      text: text(response.body) ?? "",
    },
  };
}

/** The example upload with a boundary that does not start with "-" (a hand-built body, a library's). */
function uploadWithPlainBoundary(): Exchange {
  const upload = example("uploadEddCaseFile");
  const body = upload.request.body;
  if (body?.kind !== "text") throw new Error("the example upload is not text");
  upload.request.body = { kind: "text", text: body.text.replaceAll("----idv-boundary", "idv-boundary") };
  upload.request.headers["content-type"] = "multipart/form-data; boundary=idv-boundary-7c1e9b44";
  return upload;
}

/** A request that failed in the browser (blocked, aborted): no answer. */
function failed(exchange: Exchange, failure: string): Seen {
  return { ...seen(exchange), response: undefined, failure };
}

describe("a HAR exported by Firefox", () => {
  it("reads a multipart upload whose first part's headers Firefox appended to the request's", async () => {
    const har = firefoxHar([seen(example("getEddCase")), seen(uploadWithPlainBoundary())], {
      includeResponseBodies: true,
      version: "1.2",
    });
    // The exporter's quirk is there: two Content-Type headers on the upload, the request's own first.
    const uploadHeaders = (
      har as { log: { entries: { request: { headers: { name: string; value: string }[] } }[] } }
    ).log.entries[1]?.request.headers.filter((h) => h.name.toLowerCase() === "content-type");
    expect(uploadHeaders?.map((h) => h.value)).toEqual([
      "multipart/form-data; boundary=idv-boundary-7c1e9b44",
      "application/pdf",
    ]);
    const { status, entries } = await verdicts(har, "firefox-upload.har");
    expect(entries).toEqual([
      { operationId: "getEddCase", ok: true, violations: [], warnings: [] },
      { operationId: "uploadEddCaseFile", ok: true, violations: [], warnings: [] },
    ]);
    expect(status).toBe(0);
  });

  it("says a body was not kept, not that it was empty, when bodies were not saved (version 1.1)", async () => {
    const har = firefoxHar(
      [
        seen(example("getEddCase")),
        seen(example("createPepCheck")),
        seen(example("getPepCheckPdf")),
        failed(example("getEddCase"), ""),
      ],
      { includeResponseBodies: false, version: "1.1", http2: true, contentKnown: false },
    );
    // As reported from such an export: size -1, the comment, no text, on every entry.
    const contents = (har as { log: { entries: { response: { content: object } }[] } }).log.entries.map(
      (e) => e.response.content,
    );
    for (const content of contents)
      expect(content).toMatchObject({ size: -1, comment: "Response bodies are not included." });
    expect(contents.some((c) => "text" in c)).toBe(false);
    const { status, entries } = await verdicts(har, "firefox-no-bodies.har");
    expect(entries).toEqual([
      { operationId: "getEddCase", ok: true, violations: [], warnings: [NOT_KEPT] },
      { operationId: "createPepCheck", ok: true, violations: [], warnings: [NOT_KEPT] },
      { operationId: "getPepCheckPdf", ok: true, violations: [], warnings: [NOT_KEPT] },
      // Firefox writes status 0 for a request that got no answer.
      { operationId: "getEddCase", ok: true, violations: [], warnings: [NO_ANSWER(0)] },
    ]);
    expect(status).toBe(0);
  });
});

describe("a HAR exported by Chrome DevTools", () => {
  it("reads HTTP/2 entries (pseudo-headers, _ fields, headersSize -1), a failed request (status 0) and an upload it kept no body of", async () => {
    const broken = example("createEddCase");
    delete broken.request.headers["svc-signature"];
    const har = chromeDevToolsHar([
      seen(example("getEddCase"), false),
      seen(example("createPepCheck", 422), false),
      seen(broken, false),
      failed(example("createPepCheck"), "net::ERR_FAILED"),
      { ...seen(example("uploadEddCaseFile"), false), blob: true },
    ]);
    const { status, entries } = await verdicts(har, "chrome-devtools.har");
    expect(entries).toEqual([
      { operationId: "getEddCase", ok: true, violations: [], warnings: [] },
      { operationId: "createPepCheck", ok: true, violations: [], warnings: [] },
      { operationId: "createEddCase", ok: false, violations: ["auth_headers_present"], warnings: [] },
      { operationId: "createPepCheck", ok: true, violations: [], warnings: [NO_ANSWER(0)] },
      // A FormData upload holding a File: sent (content-length), not recorded, so not judged.
      { operationId: "uploadEddCaseFile", ok: true, violations: [], warnings: [REQUEST_NOT_KEPT] },
    ]);
    expect(status).toBe(1);
  });
});
