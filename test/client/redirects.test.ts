// Redirects over real sockets: the service on one loopback port, another origin on a second. Credentials
// (v2 key and secret; v4 key, date, signature and the signed body) must never reach the other origin.
import { createHmac } from "node:crypto";
import type { ServerResponse } from "node:http";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiRequestError, createClient, type IdvClient } from "../../src/index.js";
import { canary, containsCanary } from "../support/hostile.js";
import { CREDENTIAL_HEADERS, json, type LoopbackServer, type Received, startServer } from "./servers.js";

const KEY = "redirect-key-0001";
const SECRET = "redirect-secret-0001";
const REDIRECTS = [301, 302, 303, 307, 308] as const;

let service: LoopbackServer;
let other: LoopbackServer;
let client: IdvClient;
// What the service answers to the next /api/ request: a redirect to this Location.
let plan: { status: number; location: string } = { status: 302, location: "/" };
// Whether a followed redirect is answered with a PDF (for the download call) rather than JSON.
let movedToPdf = false;

const redirect = (res: ServerResponse) => {
  res.writeHead(plan.status, { Location: plan.location, "Content-Type": "text/plain" });
  res.end("moved");
};

beforeAll(async () => {
  service = await startServer((request, res) => {
    if (!request.url.includes("/moved/")) return redirect(res);
    if (!movedToPdf) return json(res, { id: 1, assets: [] });
    res.writeHead(200, { "Content-Type": "application/pdf" });
    res.end("%PDF-1.7");
  });
  other = await startServer((_request, res) => json(res, { id: 1, assets: [] }));
  client = createClient({ baseUrl: service.origin, apiKey: KEY, secret: SECRET });
});
afterAll(async () => {
  await service.close();
  await other.close();
});

const pepBody = { reference: "pep-1", firstname: "A", lastname: "B", date_of_birth: "02/03/1990" };
const manualBody = {
  metadata: { reference: "m-1" },
  individual: { first_name: "A", last_name: "B", date_of_birth: "1990-03-02" },
  address: { line_1: "1 High St", postcode: "AB1 2CD", country: "GBR", city: "London" },
} as const;

/** One call per scheme and method: what it sends and what it is called in errors. */
const CALLS = [
  {
    name: "v2 POST /api/v2/manual_eidv",
    scheme: "v2",
    send: () => client.POST("/api/v2/manual_eidv", { body: manualBody }),
  },
  {
    name: "v4 POST /api/v4/pep_checks",
    scheme: "v4",
    send: () => client.POST("/api/v4/pep_checks", { body: pepBody }),
  },
  {
    name: "v4 GET /api/v4/outsource_cases/{id}",
    scheme: "v4",
    send: () => client.GET("/api/v4/outsource_cases/{id}", { params: { path: { id: 7 } } }),
  },
  {
    name: "v2 GET download /api/v2/biometric/pdf/{transaction_id}.pdf",
    scheme: "v2",
    send: () =>
      client.download("get", "/api/v2/biometric/pdf/{transaction_id}.pdf", {
        params: { path: { transaction_id: "t-1" } },
      }),
  },
] as const;

const credentialsIn = (requests: Received[]) =>
  requests.flatMap((r) => CREDENTIAL_HEADERS.filter((name) => r.headers[name] !== undefined));

/** A Location on another origin: another port, another host name for the service, or another scheme. */
const otherOrigin = () =>
  fc
    .tuple(
      fc.constantFrom(
        () => `http://127.0.0.1:${other.port}`,
        () => `//127.0.0.1:${other.port}`,
        () => `http://localhost:${other.port}`,
        () => `http://localhost:${service.port}`,
        () => `https://127.0.0.1:${service.port}`,
        () => `http://user:${SECRET}@127.0.0.1:${other.port}`,
      ),
      canary(),
      fc.constantFrom("path", "query", "fragment", "user"),
    )
    .map(([origin, secret, where]) => {
      const base = origin();
      if (where === "user") return base.replace("//", `//${encodeURIComponent(secret)}@`) + "/in";
      if (where === "path") return `${base}/elsewhere/${encodeURIComponent(secret)}`;
      if (where === "query") return `${base}/elsewhere?token=${encodeURIComponent(secret)}`;
      return `${base}/elsewhere#${secret}`;
    });

describe("a redirect to another origin", () => {
  it("is refused: nothing reaches the other origin, the error names the status and host, never the URL", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...REDIRECTS),
        fc.constantFrom(...CALLS),
        otherOrigin(),
        async (status, call, location) => {
          plan = { status, location };
          other.received.length = 0;
          const before = service.received.length;
          const error = await call.send().then(
            () => undefined,
            (e: unknown) => e,
          );
          // Nothing at the other origin, nor at the service under another name.
          expect(other.received).toEqual([]);
          expect(service.received.slice(before).map((r) => r.url.split("?")[0])).not.toContain("/elsewhere");
          expect(credentialsIn(other.received)).toEqual([]);
          expect(error).toBeInstanceOf(ApiRequestError);
          const { message, status: got } = error as ApiRequestError;
          expect(got).toBe(status);
          expect(message).toContain(`HTTP ${status}`);
          expect(message).toContain(new URL(location, service.origin).host);
          expect(message).toMatch(/another origin/);
          expect(containsCanary(message)).toBe(false);
          expect(message).not.toContain("elsewhere");
          expect(message).not.toContain(SECRET);
        },
      ),
      { numRuns: 60 },
    );
  });

  it.each([
    ["a client fetch that ignores its init", { fetch: (request: Request) => globalThis.fetch(request) }, {}],
    ["a call's own fetch", {}, { fetch: (request: Request) => globalThis.fetch(request) }],
    ["a call that asks for redirect: follow", {}, { redirect: "follow" }],
  ] as const)("is refused through %s", async (_name, clientOptions, callOptions) => {
    plan = { status: 308, location: `${other.origin}/elsewhere` };
    other.received.length = 0;
    const own = createClient({ baseUrl: service.origin, apiKey: KEY, secret: SECRET, ...clientOptions });
    const call = own.POST("/api/v4/pep_checks", { body: pepBody, ...(callOptions as object) });
    await expect(call).rejects.toThrow(/failed with HTTP 308: redirect to another origin/);
    expect(other.received).toEqual([]);
  });

  it("is refused for a GET without being retried", async () => {
    plan = { status: 302, location: `${other.origin}/elsewhere` };
    const before = service.received.length;
    await expect(
      client.GET("/api/v4/outsource_cases/{id}", { params: { path: { id: 7 } } }),
    ).rejects.toBeInstanceOf(ApiRequestError);
    expect(service.received.length - before).toBe(1);
  });
});

const valid = (r: Received) =>
  r.headers["svc-signature"] ===
  createHmac("sha256", SECRET).update(String(r.headers["svc-date"])).update(r.body).digest("hex");

describe("a redirect within the service's origin", () => {
  it("is followed, with the credentials of the call's scheme, re-signed over what is sent", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...REDIRECTS),
        fc.constantFrom(...CALLS),
        fc.constantFrom("/moved/here", `${"http://127.0.0.1"}:PORT/moved/there`, "moved/relative"),
        async (status, call, target) => {
          plan = { status, location: target.replace("PORT", String(service.port)) };
          movedToPdf = call.name.includes("download");
          const before = service.received.length;
          await call.send();
          const [first, followed, ...more] = service.received.slice(before);
          expect(more).toEqual([]);
          if (!first || !followed) throw new Error("the redirect was not followed");
          expect(followed.url).toMatch(/\/moved\/(here|there|relative)$/);
          // 303 always, and 301/302 after a POST, become a GET without a body (as fetch does); 307/308 repeat.
          const toGet = status === 303 || (status !== 307 && status !== 308 && first.method === "POST");
          expect(followed.method).toBe(toGet ? "GET" : first.method);
          expect(followed.body.equals(toGet ? Buffer.alloc(0) : first.body)).toBe(true);
          if (toGet) expect(followed.headers["content-type"]).toBeUndefined();
          expect(followed.headers["svc-api-key"]).toBe(KEY);
          if (call.scheme === "v2") {
            expect(followed.headers["svc-secret"]).toBe(SECRET);
          } else {
            expect(followed.headers["svc-secret"]).toBeUndefined();
            expect(valid(followed)).toBe(true);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it("stops after 20 redirects with a clear error", async () => {
    plan = { status: 307, location: "/api/v4/pep_checks" };
    const before = service.received.length;
    const call = client.POST("/api/v4/pep_checks", { body: pepBody });
    await expect(call).rejects.toThrow(
      /POST \/api\/v4\/pep_checks failed with HTTP 307: more than 20 redirects/,
    );
    expect(service.received.length - before).toBe(21);
  });
});
