import { describe, expect, it } from "vitest";
import { checkReceiverAuth, type ReceiverCredentials } from "../../src/webhooks/index.js";

const basic: ReceiverCredentials = {
  scheme: "basic",
  username: "idv-webhooks",
  password: "s3cret:with-colon",
};
const bearer: ReceiverCredentials = { scheme: "bearer", token: "tok_9f2c71d4e0a8" };
const basicHeader = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

describe("checkReceiverAuth", () => {
  it.each([
    ["Basic", basic, { authorization: basicHeader("idv-webhooks", "s3cret:with-colon") }],
    [
      "Basic, scheme in another case",
      basic,
      { Authorization: basicHeader("idv-webhooks", "s3cret:with-colon").replace("Basic", "BASIC") },
    ],
    ["Bearer", bearer, { Authorization: "Bearer tok_9f2c71d4e0a8" }],
    ["Bearer from a Fetch Headers", bearer, new Headers({ authorization: "bearer tok_9f2c71d4e0a8" })],
    [
      "the second of two rotated credentials",
      [bearer, { scheme: "bearer", token: "tok_new" }] as const,
      { authorization: "Bearer tok_new" },
    ],
  ])("accepts the right credential: %s", (_name, accepted, headers) => {
    expect(checkReceiverAuth(headers, accepted)).toEqual({ ok: true });
  });

  it.each([
    ["a wrong Bearer token", bearer, { authorization: "Bearer tok_9f2c71d4e0a9" }, "mismatch"],
    ["a Bearer token with a suffix", bearer, { authorization: "Bearer tok_9f2c71d4e0a8x" }, "mismatch"],
    ["a wrong Basic password", basic, { authorization: basicHeader("idv-webhooks", "s3cret") }, "mismatch"],
    ["a wrong Basic user", basic, { authorization: basicHeader("someone", "s3cret:with-colon") }, "mismatch"],
    ["no Authorization header", bearer, {}, "missing"],
    [
      "Basic when only Bearer is accepted",
      bearer,
      { authorization: basicHeader("a", "b") },
      "unsupported_scheme",
    ],
    [
      "Digest, which needs a challenge",
      basic,
      { authorization: 'Digest username="idv-webhooks"' },
      "unsupported_scheme",
    ],
    ["Basic that is not base64", basic, { authorization: "Basic not*base64" }, "malformed"],
    [
      "Basic without a colon",
      basic,
      { authorization: `Basic ${Buffer.from("nocolon").toString("base64")}` },
      "malformed",
    ],
    ["Bearer without a token", bearer, { authorization: "Bearer" }, "malformed"],
  ] as const)("rejects %s", (_name, accepted, headers, reason) => {
    expect(checkReceiverAuth(headers, accepted)).toEqual({ ok: false, reason });
  });

  it("never returns the credentials it compared", () => {
    const result = checkReceiverAuth({ authorization: "Bearer tok_guess" }, bearer);
    expect(JSON.stringify(result)).not.toMatch(/tok_/);
  });

  it("refuses an empty configuration instead of accepting everything", () => {
    expect(() => checkReceiverAuth({ authorization: "Bearer " }, { scheme: "bearer", token: "" })).toThrow(
      TypeError,
    );
    expect(() => checkReceiverAuth({}, [])).toThrow(TypeError);
  });
});
