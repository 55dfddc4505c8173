import fc from "fast-check";
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

describe("checkReceiverAuth with hostile Basic credentials (properties)", () => {
  const encode = (bytes: Uint8Array) => `Basic ${Buffer.from(bytes).toString("base64")}`;
  const utf8 = (text: string) => new TextEncoder().encode(text);
  const fatal = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const isUtf8 = (bytes: Uint8Array) => {
    try {
      fatal.decode(bytes);
      return true;
    } catch {
      return false;
    }
  };
  // Bytes that are not UTF-8: a lone continuation byte, an overlong form, a surrogate, a truncated sequence.
  const invalid = fc.oneof(
    fc.constantFrom([0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xff], [0xf8, 0x88, 0x80, 0x80]),
    fc
      .uint8Array({ minLength: 1, maxLength: 12 })
      .filter((bytes) => !isUtf8(bytes))
      .map((b) => [...b]),
  );
  const user = fc.string({ unit: "grapheme", maxLength: 12 }).filter((u) => !u.includes(":"));
  const password = fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 });

  it("accepts exactly the configured user and password, sent as UTF-8", () => {
    fc.assert(
      fc.property(user, password, (username, pass) => {
        const accepted: ReceiverCredentials = { scheme: "basic", username, password: pass };
        expect(checkReceiverAuth({ authorization: encode(utf8(`${username}:${pass}`)) }, accepted)).toEqual({
          ok: true,
        });
      }),
    );
  });

  it("refuses invalid UTF-8 as malformed, even against a password of U+FFFD", () => {
    fc.assert(
      fc.property(user, invalid, fc.boolean(), (username, bytes, inUser) => {
        const accepted: ReceiverCredentials = {
          scheme: "basic",
          username: `${username}\uFFFD`,
          password: "\uFFFD",
        };
        const sent = inUser
          ? [...utf8(username), ...bytes, ...utf8(":\uFFFD")]
          : [...utf8(`${username}\uFFFD:`), ...bytes];
        expect(checkReceiverAuth({ authorization: encode(Uint8Array.from(sent)) }, accepted)).toEqual({
          ok: false,
          reason: "malformed",
        });
      }),
    );
  });

  it("never accepts other bytes than the configured credentials", () => {
    fc.assert(
      fc.property(user, password, fc.uint8Array({ maxLength: 24 }), (username, pass, other) => {
        const accepted: ReceiverCredentials = { scheme: "basic", username, password: pass };
        const expected = utf8(`${username}:${pass}`);
        fc.pre(Buffer.compare(Buffer.from(other), Buffer.from(expected)) !== 0);
        expect(checkReceiverAuth({ authorization: encode(other) }, accepted).ok).toBe(false);
      }),
    );
  });

  it("keeps a leading byte order mark as a character: it is not the configured user", () => {
    const accepted: ReceiverCredentials = { scheme: "basic", username: "hooks", password: "pw" };
    const sent = Uint8Array.from([0xef, 0xbb, 0xbf, ...utf8("hooks:pw")]);
    expect(checkReceiverAuth({ authorization: encode(sent) }, accepted)).toEqual({
      ok: false,
      reason: "mismatch",
    });
  });

  it("ends the user name at the first colon: a configured user name with a colon is refused", () => {
    fc.assert(
      fc.property(user, user, password, (before, after, pass) => {
        const username = `${before}:${after}`;
        expect(() =>
          checkReceiverAuth(
            { authorization: encode(utf8(`${username}:${pass}`)) },
            {
              scheme: "basic",
              username,
              password: pass,
            },
          ),
        ).toThrow(/no ":" in a Basic user name/);
      }),
    );
    // "a:b:c" is user "a" with password "b:c", never user "a:b".
    const header = { authorization: encode(utf8("a:b:c")) };
    expect(checkReceiverAuth(header, { scheme: "basic", username: "a", password: "b:c" })).toEqual({
      ok: true,
    });
  });

  it("refuses a configured credential with a lone surrogate, and never quotes a credential", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("\uD800", "\uDFFF", "x\uDC00y"),
        fc.constantFrom("password", "username", "token"),
        (lone, where) => {
          const accepted: ReceiverCredentials =
            where === "token"
              ? { scheme: "bearer", token: `canary${lone}` }
              : { scheme: "basic", username: "u", password: "canary", [where]: `canary${lone}` };
          let message = "";
          try {
            checkReceiverAuth({ authorization: "Bearer x" }, accepted);
          } catch (error) {
            message = String(error);
          }
          expect(message).toMatch(/lone surrogate/);
          expect(message).not.toMatch(/canary/);
        },
      ),
    );
  });
});
