import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { createHmacSigner } from "../../src/client/signer.js";
import { createClient } from "../../src/index.js";
import { recordingFetch } from "./recorder.js";

const encoder = new TextEncoder();
const DATE = "2026-11-22T09:30:00.000Z";
const BODY = '{"reference":"pep-7781","firstname":"Ana","lastname":"Ruiz","date_of_birth":"02/03/1990"}';

describe("the default signer", () => {
  const sign = (secret: string, date: string, body: string, encoding?: "hex" | "base64") =>
    createHmacSigner(
      secret,
      encoding,
    )({ date, body: encoder.encode(body), method: "POST", url: "https://idv.test/x" });

  // Derived once with: printf '%s' "$DATE$BODY" | openssl dgst -sha256 -hmac "$SECRET" [-binary | base64]
  it.each([
    [
      "a JSON body, hex",
      "test-secret-0001",
      DATE,
      BODY,
      "hex",
      "8de3023780a7bda1d59b5825f2b96e1721ec7a5ae61a869724730eecc89c4e56",
    ],
    [
      "a JSON body, base64",
      "test-secret-0001",
      DATE,
      BODY,
      "base64",
      "jeMCN4CnvaHVm1gl8rluFyHselrmGoaXJHMO7MicTlY=",
    ],
    [
      "no body, hex",
      "test-secret-0001",
      DATE,
      "",
      "hex",
      "1939ffae789d0ee7ed2ec259beb121514292e39ac5366c3cda7a3fbb1f440b23",
    ],
    [
      "no body, base64",
      "test-secret-0001",
      DATE,
      "",
      "base64",
      "GTn/rnidDuftLsJZvrEhUUKS45rFNmw82no/ux9ECyM=",
    ],
    [
      "UTF-8 secret and body",
      "clé",
      "2026-01-01T00:00:00.000Z",
      "café",
      "hex",
      "31a9e41764e967861aa24d336254aa97b4ba35e219ac2d31de373ffab5eb8e9b",
    ],
  ] as const)("matches openssl for %s", async (_name, secret, date, body, encoding, want) => {
    expect(await sign(secret, date, body, encoding)).toBe(want);
  });

  it.each([
    ["hex", "hex"],
    ["base64", "base64"],
  ] as const)("agrees with node:crypto createHmac (%s) on random inputs", async (encoding, digest) => {
    // Bodies up to 64 KiB: the last ones outgrow the signer's reusable buffer.
    for (let i = 0; i < 24; i++) {
      const secret = crypto.randomUUID();
      const body = new Uint8Array(i < 20 ? i * 37 : 16_384 * (i - 19) + 1);
      crypto.getRandomValues(body.subarray(0, 65_536));
      const date = new Date(Date.UTC(2026, 0, 1) + i * 86_400_000).toISOString();
      const want = createHmac("sha256", secret).update(date).update(body).digest(digest);
      const got = await createHmacSigner(
        secret,
        encoding,
      )({ date, body, method: "GET", url: "https://idv.test/" });
      expect(got).toBe(want);
    }
  });

  it("defaults to hex", async () => {
    expect(await sign("test-secret-0001", DATE, "")).toMatch(/^[0-9a-f]{64}$/);
  });

  it("rejects an unknown encoding with a clear error", () => {
    expect(() => createHmacSigner("s", "base32" as "hex")).toThrow(
      /signatureEncoding must be "hex" or "base64"/,
    );
  });
});

describe("the default signer's date", () => {
  it("signs each request with its own date when dates change and come back", () => {
    const sign = createHmacSigner("test-secret-0001");
    const body = encoder.encode(BODY);
    for (const date of [DATE, "2026-11-22T09:30:00.001Z", DATE]) {
      const want = createHmac("sha256", "test-secret-0001").update(date).update(body).digest("hex");
      expect(sign({ date, body, method: "POST", url: "https://idv.test/x" })).toBe(want);
    }
  });
});

// The worked example of docs/client.md, for integrators in other languages. Computed independently with:
// printf '%s%s' "$DATE" "$BODY" | openssl dgst -sha256 -hmac "$SECRET" [-binary | base64]
const EXAMPLE = {
  secret: "example-secret",
  date: "2026-11-22T09:30:00.000Z",
  body: '{"reference":"onboarding-3108-pep","firstname":"Aroha","lastname":"Tipene","date_of_birth":"14/03/1985"}',
  hex: "130235cabc68cd8220925bc9076bd17d9cfbb74d8d75a341918be76144840e84",
  base64: "EwI1yrxozYIgklvJB2vRfZz7t02NdaNBkYvnYUSEDoQ=",
  emptyHex: "4a2f8760466a99cf87362ae3cdebccb5e1fbe4bb9363e4539d79e028b6e3c5fb",
  emptyBase64: "Si+HYEZqmc+HNirjzevMteH75LuTY+RTnXngKLbjxfs=",
};

describe("the worked signature example", () => {
  it.each([
    ["hex", EXAMPLE.body, EXAMPLE.hex],
    ["base64", EXAMPLE.body, EXAMPLE.base64],
    ["hex", "", EXAMPLE.emptyHex],
    ["base64", "", EXAMPLE.emptyBase64],
  ] as const)("signs as openssl does (%s, body of %#)", (encoding, body, want) => {
    const sign = createHmacSigner(EXAMPLE.secret, encoding);
    expect(sign({ date: EXAMPLE.date, body: encoder.encode(body), method: "POST", url: "https://x/" })).toBe(
      want,
    );
  });

  it("is what the client sends for that body at that date", async () => {
    const { fetch, sent } = recordingFetch();
    const client = createClient({
      baseUrl: "https://idv.test",
      apiKey: "k",
      secret: EXAMPLE.secret,
      fetch,
      now: () => new Date(EXAMPLE.date),
    });
    await client.POST("/api/v4/pep_checks", { body: JSON.parse(EXAMPLE.body) });
    expect(new TextDecoder().decode(sent[0]?.body)).toBe(EXAMPLE.body);
    expect(sent[0]?.headers.get("Svc-Signature")).toBe(EXAMPLE.hex);
  });

  it("is the example docs/client.md shows, value for value", () => {
    const docs = readFileSync(new URL("../../docs/client.md", import.meta.url), "utf8");
    for (const value of Object.values(EXAMPLE)) if (value) expect(docs).toContain(value);
  });
});
