// `idv-conformance proxy --sign`: the proxy adds to each request it forwards the credentials its
// operation's scheme needs (v2: key and secret; v4: key, Svc-Date and Svc-Signature over the exact
// body bytes), from IDV_API_KEY and IDV_API_SECRET, so that a tool that cannot sign (an Arazzo
// runner, Postman, curl) can call any operation. The scheme logic and the HMAC are the client's
// (src/client/auth.ts, signer.ts): nothing here computes a signature. The request is checked and
// recorded as it was sent, credentials included; the recording redacts them as any credential.
import { IncomingMessage, type ServerResponse } from "node:http";
import { authorize, svcDate } from "../../src/client/auth.js";
import type { OperationFacts } from "../../src/client/facts.js";
import { hmacSigning } from "../../src/client/signer.js";
import { SigningRequest } from "../../src/client/signing-request.js";
import { HttpError, readBody, type RequestTarget, type SafeHandler } from "../../src/server/index.js";
import type { RouteTable } from "../../src/contract/router.js";
import type { OperationModel } from "../checks/contract-model.js";
import { UsageError } from "../run/command.js";
import { refuseFraming } from "./request-head.js";
import type { BudgetHolder } from "./budget.js";
import { Capture } from "./capture.js";

/** The credentials the proxy signs with. */
export interface SigningCredentials {
  apiKey: string;
  secret: string;
}

/** The headers that carry credentials: whatever the client sent of them is replaced, never forwarded. */
const CREDENTIAL_HEADERS = new Set(["svc-api-key", "svc-secret", "svc-date", "svc-signature"]);

/** The credentials from IDV_API_KEY and IDV_API_SECRET; a UsageError naming them (never a value) when one is missing. */
export function signingCredentials(env: NodeJS.ProcessEnv): SigningCredentials {
  const apiKey = env.IDV_API_KEY;
  const secret = env.IDV_API_SECRET;
  if (!apiKey || !secret)
    throw new UsageError("--sign needs IDV_API_KEY and IDV_API_SECRET in the environment");
  return { apiKey, secret };
}

const V2: OperationFacts = { auth: "v2" };
const V4: OperationFacts = { auth: "v4" };
const NONE: OperationFacts = { auth: "none" };

/**
 * The scheme the client would sign an operation of the checker's model with: v4 when its security
 * requirement (the first alternative, the one a client sends) needs Svc-Signature, v2 when it needs
 * Svc-Secret, none otherwise (no security, or a scheme the service's client does not send).
 */
export function schemeOf(op: OperationModel): OperationFacts {
  const [headers] = op.securityLower;
  if (headers?.includes("svc-signature")) return V4;
  return headers?.includes("svc-secret") ? V2 : NONE;
}

/** The request as the service gets it: the client's headers without credentials, then the scheme's. */
function withCredentials(req: IncomingMessage, signed: Headers, body: Buffer | undefined): IncomingMessage {
  const rawHeaders: string[] = [];
  // A header's name is the client's: never a key of a plain object.
  const headers: IncomingMessage["headers"] = Object.create(null);
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] as string;
    if (CREDENTIAL_HEADERS.has(name.toLowerCase())) continue;
    rawHeaders.push(name, req.rawHeaders[i + 1] as string);
  }
  for (const [name, value] of Object.entries(req.headers))
    if (!CREDENTIAL_HEADERS.has(name)) headers[name] = value;
  for (const [name, spelling] of [
    ["svc-api-key", "Svc-API-Key"],
    ["svc-secret", "Svc-Secret"],
    ["svc-date", "Svc-Date"],
    ["svc-signature", "Svc-Signature"],
  ] as const) {
    const value = signed.get(name);
    if (value === null) continue;
    rawHeaders.push(spelling, value);
    headers[name] = value;
  }
  if (!body) {
    // Nothing read yet: the same request, its body still streaming, with the new head.
    req.rawHeaders = rawHeaders;
    req.headers = headers;
    return req;
  }
  // The body was read to be signed: the request goes on as a message of those very bytes.
  const copy = new IncomingMessage(req.socket);
  copy.method = req.method;
  copy.url = req.url;
  copy.httpVersion = req.httpVersion;
  copy.rawHeaders = rawHeaders;
  copy.headers = headers;
  copy.on("error", () => undefined);
  if (body.length > 0) copy.push(body);
  copy.push(null);
  copy.complete = true;
  return copy;
}

/** How much of a v4 body the proxy reads to sign it. */
export interface SigningOptions {
  maxBytes: number;
}

/**
 * Wraps the proxy's handler so that each request to an operation of the contract carries its
 * scheme's credentials, the operation found by the routes of the checker's own model (the proxy
 * passes them). A v4 request's body is read first (at most `maxBytes`, else 413), since its
 * signature covers it, counted in the exchange's share of the proxy's budget (`holderOf`); a v2
 * request streams as before. Any other request passes unchanged.
 */
export function signingHandler(
  credentials: SigningCredentials,
  options: SigningOptions,
): (
  handle: SafeHandler,
  routes: RouteTable<OperationModel>,
  holderOf?: (res: ServerResponse) => BudgetHolder,
) => SafeHandler {
  const auth = { ...credentials, sign: hmacSigning(credentials.secret), date: svcDate() };
  return (handle, routes, holderOf) =>
    async (req: IncomingMessage, res: ServerResponse, target: RequestTarget) => {
      const route = routes.match(req.method ?? "GET", target.pathname);
      const facts = route.kind === "found" ? schemeOf(route.target) : NONE;
      if (facts.auth === "none") return handle(req, res, target);
      refuseFraming(req);
      let body: Buffer | undefined;
      if (facts.auth === "v4") {
        body = holderOf
          ? await readCounted(req, options.maxBytes, holderOf(res))
          : await readWhole(req, options.maxBytes);
        if (!body) throw new HttpError(413, "The request body is larger than the proxy signs.");
      }
      // The client's own code: the method and URL do not enter the signature, only the date and body.
      const bytes = body ? new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.length) : "";
      const request = new SigningRequest("http://proxy.invalid/", { method: "POST", body: bytes });
      const signed = (await authorize(request, facts, auth)) ?? request;
      return handle(withCredentials(req, signed.headers, body), res, target);
    };
}

/** A body up to `max` bytes, or undefined past it (the rest read and dropped, so that the 413 is read). */
async function readWhole(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  const read = await readBody(req, max);
  return read.ok ? read.bytes : undefined;
}

/**
 * A body up to `max` bytes, each chunk counted in the exchange's share of the proxy's budget (the
 * client waits while it is spent); it stays counted until the exchange is done. Undefined past
 * `max` or past the exchange's share (the rest read and dropped as it comes).
 */
async function readCounted(
  req: IncomingMessage,
  max: number,
  holder: BudgetHolder,
): Promise<Buffer | undefined> {
  const capture = new Capture(max, holder);
  for await (const chunk of req) await capture.add(chunk as Buffer);
  return capture.bytes();
}
