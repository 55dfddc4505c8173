import type { Middleware } from "openapi-fetch";
import { factsOf } from "./facts.js";
import type { Signer } from "./signer.js";
import { SigningRequest } from "./signing-request.js";

export interface AuthOptions {
  apiKey: string;
  secret: string;
  signer: Signer;
  now: () => Date;
}

const EMPTY = new Uint8Array(0);

/** Set Svc-Date and Svc-Signature on a v4 request, over exactly these body bytes. */
export function signRequest(request: Request, body: Uint8Array, options: AuthOptions): void | Promise<void> {
  const date = options.now().toISOString();
  const signature = options.signer({ date, body, method: request.method, url: request.url });
  const set = (value: string) => {
    request.headers.set("Svc-Date", date);
    request.headers.set("Svc-Signature", value);
  };
  // A synchronous signer (node:crypto, or the caller's) keeps the whole request free of extra awaits.
  return typeof signature === "string" ? set(signature) : signature.then(set);
}

async function signReadBody(request: Request, options: AuthOptions): Promise<Request> {
  // A FormData body, or a Request from the caller's middleware: read it once and send those very bytes.
  const body = new Uint8Array(await request.arrayBuffer());
  const signed = new SigningRequest(request, { body });
  await signRequest(signed, body, options);
  return signed;
}

/** Middleware adding each operation's credentials: v2 key and secret, or v4 key, date and signature. */
export function authMiddleware(options: AuthOptions): Middleware {
  return {
    onRequest({ request, schemaPath }) {
      const facts = factsOf(request.method, schemaPath);
      if (!facts) {
        throw new Error(`idv-contract: ${request.method} ${schemaPath} is not an operation of the contract`);
      }
      const headers = request.headers;
      if (facts.auth === "none") return;
      headers.set("Svc-API-Key", options.apiKey);
      if (facts.auth === "v2") {
        headers.set("Svc-Secret", options.secret);
        return;
      }
      // v4: the secret only keys the signature and never travels, whatever headers the caller set.
      headers.delete("Svc-Secret");
      if (!request.body) return signRequest(request, EMPTY, options) as undefined | Promise<undefined>;
      // The bytes the request was built with are the bytes it sends.
      const bytes = SigningRequest.of(request)?.bodyBytes;
      if (bytes) return signRequest(request, bytes, options) as undefined | Promise<undefined>;
      return signReadBody(request, options);
    },
  };
}
