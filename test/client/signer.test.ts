import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createHmacSigner, encodeDigest } from "../../src/client/signer.js";

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

describe("digest encoding", () => {
  it("encodes digests as hex and base64", () => {
    const digest = new Uint8Array([0, 1, 254, 255]);
    expect(encodeDigest(digest, "hex")).toBe("0001feff");
    expect(encodeDigest(digest, "base64")).toBe(Buffer.from([0, 1, 254, 255]).toString("base64"));
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
