// Receivers' rules, one check for every way in (the --webhook-url and --webhook-auth flags, the
// control API, the --state file): how many, which URLs, which credentials, and the header they make.
import type { ReceiverAuth } from "./types.js";

/** Receivers the sandbox keeps at most: each event fans out to all of them, so their number bounds one event's work. */
export const MAX_RECEIVERS = 100;

/** A bearer token: RFC 6750's b64token (RFC 7235's token68), as an Authorization header carries it. */
const TOKEN68 = /^[A-Za-z0-9._~+/-]+=*$/;
/** Control characters, which RFC 7617's user-pass excludes, and lone surrogates, which UTF-8 cannot carry. */
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const NOT_IN_BASIC = /[\u0000-\u001f\u007f]|\p{Cs}/u;

/**
 * Why receiver credentials cannot be sent, as the member and the rule (never the value), or
 * undefined when they can. One check for every way in: the --webhook-auth flag, the control API
 * and the --state file, so that what one accepts the others accept too. A bearer token is a token68
 * (RFC 7235) of at most 4,096 characters; a Basic user name has at most 512 characters and no ":"
 * (RFC 7617), a password at most 4,096; neither is empty or holds a control character or a lone
 * surrogate (the pair is sent as UTF-8, base64-encoded).
 */
export function receiverAuthProblem(auth: unknown): { member: string; why: string } | undefined {
  if (typeof auth !== "object" || auth === null) return { member: "", why: "must be an object" };
  const a = auth as Record<string, unknown>;
  if (a.scheme === "bearer") {
    const token = a.token;
    if (typeof token !== "string" || token.length < 1 || token.length > 4096 || !TOKEN68.test(token))
      return {
        member: "/token",
        why: "must be 1 to 4096 characters of A-Z, a-z, 0-9, -, ., _, ~, + and /, then any = (an RFC 7235 token68)",
      };
    return undefined;
  }
  if (a.scheme === "basic") {
    const { username, password } = a;
    if (typeof username !== "string" || username.length < 1 || username.length > 512)
      return { member: "/username", why: "must be 1 to 512 characters" };
    if (username.includes(":") || NOT_IN_BASIC.test(username))
      return { member: "/username", why: 'must hold no ":", control character or lone surrogate (RFC 7617)' };
    if (typeof password !== "string" || password.length < 1 || password.length > 4096)
      return { member: "/password", why: "must be 1 to 4096 characters" };
    if (NOT_IN_BASIC.test(password))
      return { member: "/password", why: "must hold no control character or lone surrogate (RFC 7617)" };
    return undefined;
  }
  return { member: "/scheme", why: "must be bearer or basic" };
}

/** A receiver URL, or an Error saying what is wrong with it. */
export function receiverUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error("url must be an absolute http or https URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("url must use http or https");
  if (url.username || url.password) throw new Error("url must not carry credentials: give them as auth");
  return url.href;
}

/** The Authorization header of a receiver's credentials. */
export function authorization(auth: ReceiverAuth | undefined): Record<string, string> {
  if (!auth) return {};
  if (auth.scheme === "bearer") return { Authorization: `Bearer ${auth.token}` };
  return { Authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString("base64")}` };
}
