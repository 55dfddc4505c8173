import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createClient } from "../../src/index.js";
import { deref, loadOpenApi, operations } from "../support/contract.js";
import { BASE, FIXED_DATE, headerEntries, recordingFetch } from "./recorder.js";

const document = loadOpenApi();
const hmac = (date: string, body: Uint8Array, encoding: "hex" | "base64" = "hex") =>
  createHmac("sha256", BASE.secret).update(date).update(body).digest(encoding);

// Read straight from the contract, independently of generated/operations.ts.
const cases = operations(document).map(({ method, path, op }) => {
  const names: string[] = Object.keys((op.security ?? document.security)[0]);
  const headers = names.map((n) => document.components.securitySchemes[n].name as string);
  const content = deref(document, op.requestBody)?.content ?? {};
  return {
    method,
    path,
    headers,
    multipart: "multipart/form-data" in content,
    json: "application/json" in content,
  };
});

function call(client: ReturnType<typeof createClient>, c: (typeof cases)[number]) {
  const path = Object.fromEntries([...c.path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => [name, "7"]));
  const form = new FormData();
  form.append("file", new Blob(["%PDF-1.7"], { type: "application/pdf" }), "deed.pdf");
  const body = c.multipart ? form : c.json ? { reference: "ref-1" } : undefined;
  return client.request(c.method as "get", c.path as never, { params: { path }, body } as never);
}

describe("credentials on every operation of the contract", () => {
  it.each(cases.map((c) => [`${c.method.toUpperCase()} ${c.path}`, c] as const))("%s", async (_name, c) => {
    const { fetch, sent } = recordingFetch();
    const client = createClient({ ...BASE, fetch, now: () => FIXED_DATE });
    await call(client, c);
    const [request] = sent;
    if (!request) throw new Error("nothing was sent");
    const credentialHeaders = ["svc-api-key", "svc-secret", "svc-date", "svc-signature"];
    const names = headerEntries(request.headers)
      .map(([n]) => n)
      .filter((n) => credentialHeaders.includes(n));
    expect(names.sort()).toEqual(c.headers.map((h) => h.toLowerCase()).sort());
    expect(request.headers.get("Svc-API-Key")).toBe(BASE.apiKey);
    if (c.headers.includes("Svc-Signature")) {
      // v4: the secret never travels, in any header.
      expect(headerEntries(request.headers).some(([, v]) => v.includes(BASE.secret))).toBe(false);
      expect(request.headers.get("Svc-Date")).toBe("2026-11-22T09:30:00.000Z");
      expect(request.headers.get("Svc-Signature")).toBe(hmac("2026-11-22T09:30:00.000Z", request.body));
    } else {
      expect(request.headers.get("Svc-Secret")).toBe(BASE.secret);
    }
  });

  it("covers the v2 and v4 schemes and a multipart body", () => {
    expect(cases.filter((c) => c.headers.includes("Svc-Secret")).length).toBeGreaterThan(0);
    expect(cases.filter((c) => c.headers.includes("Svc-Signature")).length).toBeGreaterThan(0);
    expect(cases.filter((c) => c.multipart).length).toBeGreaterThan(0);
  });
});

describe("v4 signing", () => {
  const pep = { reference: "pep-7781", firstname: "Ana", lastname: "Ruiz", date_of_birth: "02/03/1990" };

  it("signs the exact body bytes sent, with Svc-Date in ISO 8601 UTC", async () => {
    const { fetch, sent } = recordingFetch();
    await createClient({ ...BASE, fetch }).POST("/api/v4/pep_checks", { body: pep });
    const [request] = sent;
    const date = request?.headers.get("Svc-Date") ?? "";
    expect(date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(new TextDecoder().decode(request?.body)).toBe(JSON.stringify(pep));
    expect(request?.headers.get("Svc-Signature")).toBe(hmac(date, request?.body ?? new Uint8Array()));
  });

  it.each([
    ["multi-byte characters", "Łódź 😀 ünïcödé"],
    ["a body longer than the reused buffer", "x".repeat(5000)],
  ])("signs the bytes sent for a body with %s", async (_name, reference) => {
    const { fetch, sent } = recordingFetch();
    const client = createClient({ ...BASE, fetch });
    await client.POST("/api/v4/pep_checks", { body: { ...pep, reference } });
    await client.POST("/api/v4/pep_checks", { body: pep });
    for (const request of sent) {
      const date = request.headers.get("Svc-Date") ?? "";
      expect(request.headers.get("Svc-Signature")).toBe(hmac(date, request.body));
    }
    expect(new TextDecoder().decode(sent[0]?.body)).toContain(reference);
  });

  it("gives an asynchronous signer body bytes that stay as they were while other requests are signed", async () => {
    const { fetch, sent } = recordingFetch();
    const signer = async ({ date, body }: { date: string; body: Uint8Array }) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return hmac(date, body);
    };
    const client = createClient({ ...BASE, fetch, signer });
    await Promise.all(
      ["first", "second", "third"].map((reference) =>
        client.POST("/api/v4/pep_checks", { body: { ...pep, reference } }),
      ),
    );
    expect(sent).toHaveLength(3);
    for (const request of sent) {
      expect(request.headers.get("Svc-Signature")).toBe(
        hmac(request.headers.get("Svc-Date") ?? "", request.body),
      );
    }
  });

  it("matches the openssl vector for a known date and body", async () => {
    const { fetch, sent } = recordingFetch();
    await createClient({ ...BASE, fetch, now: () => FIXED_DATE }).POST("/api/v4/pep_checks", { body: pep });
    expect(sent[0]?.headers.get("Svc-Signature")).toBe(
      "8de3023780a7bda1d59b5825f2b96e1721ec7a5ae61a869724730eecc89c4e56",
    );
  });

  it("encodes the digest as base64 on request", async () => {
    const { fetch, sent } = recordingFetch();
    const client = createClient({ ...BASE, fetch, now: () => FIXED_DATE, signatureEncoding: "base64" });
    await client.POST("/api/v4/pep_checks", { body: pep });
    expect(sent[0]?.headers.get("Svc-Signature")).toBe("jeMCN4CnvaHVm1gl8rluFyHselrmGoaXJHMO7MicTlY=");
  });

  it("uses a caller-supplied signer, given the date, the body bytes, the method and the URL", async () => {
    const { fetch, sent } = recordingFetch();
    const inputs: { date: string; body: string; method: string; url: string }[] = [];
    const signer = ({
      date,
      body,
      method,
      url,
    }: {
      date: string;
      body: Uint8Array;
      method: string;
      url: string;
    }) => {
      inputs.push({ date, body: new TextDecoder().decode(body), method, url });
      return "caller-signature";
    };
    const client = createClient({ ...BASE, fetch, signer, now: () => FIXED_DATE });
    await client.GET("/api/v4/outsource_cases/{id}", { params: { path: { id: 42 } } });
    expect(inputs).toEqual([
      {
        date: FIXED_DATE.toISOString(),
        body: "",
        method: "GET",
        url: "https://idv.test/api/v4/outsource_cases/42",
      },
    ]);
    expect(sent[0]?.headers.get("Svc-Signature")).toBe("caller-signature");
  });

  it("gives a signer an input it can spread or serialise whole", async () => {
    const { fetch } = recordingFetch();
    const copies: string[] = [];
    const signer = (input: object) => {
      copies.push(JSON.stringify({ ...input, body: undefined }));
      return "caller-signature";
    };
    const client = createClient({ ...BASE, fetch, signer, now: () => FIXED_DATE });
    await client.GET("/api/v4/outsource_cases/{id}", { params: { path: { id: 42 } } });
    expect(copies).toEqual([
      JSON.stringify({
        date: FIXED_DATE.toISOString(),
        method: "GET",
        url: "https://idv.test/api/v4/outsource_cases/42",
      }),
    ]);
  });

  it("drops a Svc-Secret the caller put in the default headers", async () => {
    const { fetch, sent } = recordingFetch();
    const client = createClient({ ...BASE, fetch, headers: { "Svc-Secret": BASE.secret, "X-Trace": "t1" } });
    await client.POST("/api/v4/pep_checks", { body: pep });
    expect(sent[0]?.headers.has("Svc-Secret")).toBe(false);
    expect(sent[0]?.headers.get("X-Trace")).toBe("t1");
  });

  it("signs after the caller's middleware, so a rewritten body is what is signed", async () => {
    const { fetch, sent } = recordingFetch();
    const client = createClient({ ...BASE, fetch, now: () => FIXED_DATE });
    client.use({
      onRequest: async ({ request }) =>
        new Request(request, { body: JSON.stringify({ ...(await request.json()), reference: "rewritten" }) }),
    });
    await client.POST("/api/v4/pep_checks", { body: pep });
    const body = sent[0]?.body ?? new Uint8Array();
    expect(new TextDecoder().decode(body)).toContain('"reference":"rewritten"');
    expect(sent[0]?.headers.get("Svc-Signature")).toBe(hmac(FIXED_DATE.toISOString(), body));
  });

  it("adds the credentials to a call that brings its own fetch, and sends through that fetch", async () => {
    const client = recordingFetch();
    const own = recordingFetch();
    const idv = createClient({ ...BASE, fetch: client.fetch, now: () => FIXED_DATE });
    await idv.POST("/api/v4/pep_checks", { body: pep, fetch: own.fetch });
    await idv.request("post", "/api/v2/manual_eidv", { body: {} as never, fetch: own.fetch });
    expect(client.sent).toEqual([]);
    expect(own.sent[0]?.headers.get("Svc-Signature")).toBe(
      "8de3023780a7bda1d59b5825f2b96e1721ec7a5ae61a869724730eecc89c4e56",
    );
    expect(own.sent[1]?.headers.get("Svc-Secret")).toBe(BASE.secret);
  });

  it("keeps signing when the caller's use() throws on a bad middleware", async () => {
    const { fetch, sent } = recordingFetch();
    const client = createClient({ ...BASE, fetch });
    expect(() => client.use({} as never)).toThrow(/Middleware must be an object/);
    await client.POST("/api/v4/pep_checks", { body: pep });
    expect(sent[0]?.headers.has("Svc-Signature")).toBe(true);
  });

  it("refuses a path that is not an operation of the contract, sending nothing", async () => {
    const { fetch, sent } = recordingFetch();
    const client = createClient({ ...BASE, fetch });
    await expect(client.request("get", "/api/v4/unknown" as never)).rejects.toThrow(
      /GET \/api\/v4\/unknown is not an operation of the contract/,
    );
    expect(sent).toEqual([]);
  });
});
