// `idv-conformance proxy --sign`: each request to an operation of the contract reaches the service
// with its scheme's credentials (v2 key and secret; v4 key, date and the HMAC over the exact body),
// from IDV_API_KEY and IDV_API_SECRET; a client's own credentials are replaced; nothing else is
// touched; the credentials are never printed nor recorded.
import { readFileSync, rmSync } from "node:fs";
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundledContract } from "../../conformance/checks/load-contract.js";
import { signingHandler } from "../../conformance/proxy/sign-upstream.js";
import { runProxy } from "../../conformance/proxy/proxy-cli.js";
import { startProxy } from "../../conformance/proxy/proxy.js";
import { openConformanceChecker } from "../../conformance/run/open-checker.js";
import { v4Signatures } from "../../src/server/credentials.js";
import { tempDir } from "./support/cli.js";
import { Capture, runMain } from "./support/in-process.js";

const KEY = "sign-test-key-7f3a";
const SECRET = "sign-test-secret-91c2";
const dir = tempDir();

/** What the upstream got: the head and body of each request. */
const got: { method: string; path: string; headers: IncomingHttpHeaders; raw: string[]; body: Buffer }[] = [];
let upstream: Server;
let upstreamUrl: string;
const saved = { key: process.env.IDV_API_KEY, secret: process.env.IDV_API_SECRET };

beforeAll(async () => {
  upstream = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      got.push({
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        raw: req.rawHeaders,
        body: Buffer.concat(chunks),
      });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => upstream.close(resolve));
  rmSync(dir, { recursive: true, force: true });
  for (const [name, value] of [
    ["IDV_API_KEY", saved.key],
    ["IDV_API_SECRET", saved.secret],
  ] as const)
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
});

/** Run `proxy --sign` with the credentials in the environment, send `traffic`, stop; what it printed. */
async function signedRun(traffic: (url: string) => Promise<void>, extra: string[] = []) {
  process.env.IDV_API_KEY = KEY;
  process.env.IDV_API_SECRET = SECRET;
  got.length = 0;
  const stdout = new Capture();
  const stderr = new Capture();
  let stop = (): void => undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  let listened = (_url: string): void => undefined;
  const listening = new Promise<string>((resolve) => (listened = resolve));
  const finished = runProxy(["proxy", "--upstream", upstreamUrl, "--port", "0", "--sign", ...extra], {
    stdout,
    stderr,
    stopped,
    onListening: (url) => listened(url),
  });
  const url = await Promise.race([
    listening,
    finished.then((code) => Promise.reject(new Error(`exit ${code}`))),
  ]);
  await traffic(url);
  stop();
  return { status: await finished, output: stdout.text + stderr.text };
}

const send = (url: string, init: RequestInit & { path: string }) =>
  fetch(`${url}${init.path}`, init).then(async (r) => void (await r.arrayBuffer()));

describe("proxy --sign", () => {
  it("adds a v2 operation's key and secret, replacing the client's", async () => {
    await signedRun((url) =>
      send(url, {
        path: "/api/v2/send_text",
        method: "POST",
        headers: { "content-type": "application/json", "svc-secret": "the-clients-own" },
        body: '{"contact_phone":"+64215550147"}',
      }),
    );
    expect(got).toHaveLength(1);
    expect(got[0]!.headers["svc-api-key"]).toBe(KEY);
    expect(got[0]!.headers["svc-secret"]).toBe(SECRET);
    expect(got[0]!.headers["svc-signature"]).toBeUndefined();
    expect(got[0]!.body.toString()).toBe('{"contact_phone":"+64215550147"}');
  });

  it("signs a v4 operation's date and exact body bytes, and sends no secret", async () => {
    const body = '{"reference":"r-1","firstname":"Aroha","lastname":"Tipene"}';
    await signedRun(async (url) => {
      await send(url, {
        path: "/api/v4/pep_checks",
        method: "POST",
        headers: { "content-type": "application/json", "svc-secret": "leak-me", "svc-signature": "forged" },
        body,
      });
      await send(url, { path: "/api/v4/pdf/pep_checks/1042", method: "GET" });
    });
    const [post, get] = got;
    for (const request of [post!, get!]) {
      expect(request.headers["svc-api-key"]).toBe(KEY);
      expect(request.headers["svc-secret"]).toBeUndefined();
      const date = request.headers["svc-date"] as string;
      expect(Number.isNaN(Date.parse(date))).toBe(false);
      // Checked with the server's code, not the signer's.
      expect(request.headers["svc-signature"]).toBe(v4Signatures(SECRET, date, request.body).hex);
    }
    expect(post!.body.toString()).toBe(body);
    expect(get!.body.length).toBe(0);
  });

  it("passes a header named __proto__ on as a header, v2 and v4 alike", async () => {
    await signedRun(async (url) => {
      for (const path of ["/api/v2/send_text", "/api/v4/pep_checks"])
        await new Promise<void>((resolve, reject) => {
          // node:http, since fetch drops a header of that name before sending it.
          const request = httpRequest(`${url}${path}`, {
            method: "POST",
            headers: ["host", new URL(url).host, "__proto__", "x", "constructor", "y", "content-length", "2"],
          });
          request.on("response", (response) => response.resume().on("end", resolve));
          request.on("error", reject);
          request.end("{}");
        });
    });
    expect(got).toHaveLength(2);
    for (const request of got) {
      expect(request.headers["svc-api-key"]).toBe(KEY);
      const raw = request.raw.map((v, i) => (i % 2 === 0 ? v.toLowerCase() : v)).join("\n");
      expect(raw).toContain("__proto__\nx");
      expect(raw).toContain("constructor\ny");
    }
  });

  it("leaves a request that is no operation of the contract as it came", async () => {
    await signedRun((url) =>
      send(url, { path: "/health", method: "GET", headers: { "svc-secret": "kept" } }),
    );
    expect(got[0]!.headers["svc-api-key"]).toBeUndefined();
    expect(got[0]!.headers["svc-secret"]).toBe("kept");
  });

  it("prints and records no credential it added", async () => {
    const har = join(dir, "signed.har");
    const run = await signedRun(
      async (url) => {
        await send(url, { path: "/api/v2/send_text", method: "POST", body: "{}" });
        await send(url, { path: "/api/v4/pep_checks", method: "POST", body: "{}" });
      },
      ["--record", har],
    );
    const recorded = readFileSync(har, "utf8");
    for (const text of [run.output, recorded]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(SECRET);
    }
    for (const request of got) expect(recorded).not.toContain(request.headers["svc-signature"]);
    // Recorded as sent, the values redacted.
    expect(recorded).toContain('{"name":"Svc-Secret","value":"[redacted]"}');
    expect(recorded).toContain('{"name":"Svc-Signature","value":"[redacted]"}');
  });

  it("refuses to start without IDV_API_KEY and IDV_API_SECRET (exit 2, naming them)", async () => {
    process.env.IDV_API_KEY = KEY;
    delete process.env.IDV_API_SECRET;
    const result = await runMain(["proxy", "--upstream", upstreamUrl, "--sign"]);
    expect(result.status).toBe(2);
    expect(result.stderr.split("\n")[0]).toBe(
      "idv-conformance: --sign needs IDV_API_KEY and IDV_API_SECRET in the environment",
    );
    expect(result.stderr).not.toContain(KEY);
  });

  it("answers 413 for a v4 body larger than it signs, and forwards nothing", async () => {
    got.length = 0;
    const checker = await openConformanceChecker({ spec: bundledContract(), basePaths: [] });
    const proxy = await startProxy({
      upstream: new URL(upstreamUrl),
      checker,
      port: 0,
      sign: signingHandler({ apiKey: KEY, secret: SECRET }, { maxBytes: 16 }),
    });
    try {
      const response = await fetch(`${proxy.url}/api/v4/pep_checks`, {
        method: "POST",
        body: "x".repeat(17),
      });
      expect(response.status).toBe(413);
      expect(await response.json()).toMatchObject({ error_code: "PROXY_REQUEST" });
      expect(got).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it("a service it cannot reach: 502 in the service's shape, a v4 body read to sign or not", async () => {
    const checker = await openConformanceChecker({ spec: bundledContract(), basePaths: [] });
    const proxy = await startProxy({
      upstream: new URL("http://127.0.0.1:9"),
      checker,
      port: 0,
      sign: signingHandler({ apiKey: KEY, secret: SECRET }, { maxBytes: 1024 }),
    });
    try {
      for (const path of ["/api/v4/pep_checks", "/api/v2/send_text"]) {
        const response = await fetch(`${proxy.url}${path}`, { method: "POST", body: '{"a":1}' });
        expect(response.status, path).toBe(502);
        expect(await response.json()).toMatchObject({ error_code: "PROXY_UPSTREAM" });
      }
    } finally {
      await proxy.close();
    }
  });
});
