// Credentials like the service's: v2 checks the key and the secret; v4 checks the key and the
// signature (HMAC-SHA256 over Svc-Date then the exact body), so a client with a signing bug gets the
// service's 401; a browser Origin gets CRED_AT_RISK where the contract documents it.
import { createHmac } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiError, createClient } from "../../src/index.js";
import { checkV2 } from "../../src/server/credentials.js";
import { CREDENTIALS, startTestSandbox } from "../support/sandbox.js";

let sbx: Awaited<ReturnType<typeof startTestSandbox>>;
beforeAll(async () => {
  sbx = await startTestSandbox();
});
afterAll(() => sbx.running.close());

const pep = { reference: "r-1", firstname: "A", lastname: "B", date_of_birth: "14/03/1985" };
const sign = (date: string, body: string | Uint8Array, encoding: "hex" | "base64" = "hex") =>
  createHmac("sha256", CREDENTIALS.secret).update(date).update(body).digest(encoding);

/** POST a v4 body with the given date and signature. */
const v4 = (body: string, date: string, signature: string, extra: Record<string, string> = {}) =>
  fetch(`${sbx.running.url}/api/v4/pep_checks`, {
    method: "POST",
    headers: {
      "svc-api-key": CREDENTIALS.apiKey,
      "svc-date": date,
      "svc-signature": signature,
      "content-type": "application/json",
      ...extra,
    },
    body,
  });

describe("v2", () => {
  it("needs both values", async () => {
    const wrong = createClient({
      baseUrl: sbx.running.url,
      apiKey: CREDENTIALS.apiKey,
      secret: "nope",
      retry: false,
    });
    const r = await wrong.POST("/api/v2/send_text", { body: { reference: "x" } });
    expect(apiError(r)).toMatchObject({ status: 401, code: "AUTH_FAILED" });
    const manual = await fetch(`${sbx.running.url}/api/v2/manual_eidv`, {
      method: "POST",
      headers: {
        "svc-api-key": "other",
        "svc-secret": CREDENTIALS.secret,
        "content-type": "application/json",
      },
      body: "{}",
    });
    expect(manual.status).toBe(401);
    expect(await manual.json()).toMatchObject({ error_type: "AUTHENTICATION" });
  });
});

describe("v4", () => {
  it("accepts the contract's signature, hex or base64, over the exact body", async () => {
    const body = JSON.stringify(pep);
    const date = new Date().toISOString();
    expect((await v4(body, date, sign(date, body))).status).toBe(200);
    expect((await v4(body, date, sign(date, body, "base64"))).status).toBe(200);
  });

  it("refuses a client with a signing bug with the service's 401", async () => {
    // The bug: the signature covers the date only, not the body.
    const buggy = createClient({
      baseUrl: sbx.running.url,
      ...CREDENTIALS,
      signer: ({ date }) => sign(date, ""),
      retry: false,
    });
    const r = await buggy.POST("/api/v4/pep_checks", { body: pep });
    expect(apiError(r)).toMatchObject({ status: 401, code: "AUTH_FAILED" });
    expect(apiError(r)?.message).not.toContain(CREDENTIALS.secret);
    const good = createClient({ baseUrl: sbx.running.url, ...CREDENTIALS, retry: false });
    expect((await good.POST("/api/v4/pep_checks", { body: pep })).response.status).toBe(200);
  });

  it("refuses every signature made over other bytes or another date", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 30 }),
        fc.string({ minLength: 1, maxLength: 5 }),
        async (noise, extra) => {
          const body = JSON.stringify({ ...pep, reference: `r-${noise}` });
          const date = new Date().toISOString();
          expect((await v4(body, date, sign(date, body + extra))).status).toBe(401);
          expect((await v4(body, date, sign(date + extra, body))).status).toBe(401);
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe("CRED_AT_RISK", () => {
  it("answers a browser script's request with the credentials where the contract documents it", async () => {
    const body = JSON.stringify(pep);
    const date = new Date().toISOString();
    const fromBrowser = await v4(body, date, sign(date, body), { origin: "https://shop.example" });
    expect(fromBrowser.status).toBe(400);
    expect(await fromBrowser.json()).toMatchObject({ error_code: "CRED_AT_RISK" });
    const v2 = await fetch(`${sbx.running.url}/api/v2/send_text`, {
      method: "POST",
      headers: {
        "svc-api-key": CREDENTIALS.apiKey,
        "svc-secret": CREDENTIALS.secret,
        "x-requested-with": "XMLHttpRequest",
        "content-type": "application/json",
      },
      body: JSON.stringify({ reference: "x" }),
    });
    expect(await v2.json()).toMatchObject({ error_code: "CRED_AT_RISK" });
  });
});

describe("the accepted credentials' digests", () => {
  it("follow a Credentials object that changes: the old values are refused, the new accepted", () => {
    const credentials = { apiKey: "key-1", secret: "secret-1" };
    expect(checkV2(credentials, "key-1", "secret-1")).toBeUndefined();
    credentials.apiKey = "key-2";
    credentials.secret = "secret-2";
    expect(checkV2(credentials, "key-1", "secret-1")).toBe("key");
    expect(checkV2(credentials, "key-2", "secret-1")).toBe("secret");
    expect(checkV2(credentials, "key-2", "secret-2")).toBeUndefined();
    expect(checkV2({ apiKey: "key-2", secret: "secret-2" }, "key-1", "secret-2")).toBe("key");
  });
});
