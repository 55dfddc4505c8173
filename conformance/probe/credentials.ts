// The credentials a probe request carries: the right ones, signed by the typed client's own signer
// (node:crypto's HMAC; never a hash of our own), or one of the wrong kinds the auth phase sends.
import { randomBytes } from "node:crypto";
import { hmacSigning } from "../../src/client/signer.js";
import type { CurlHeader, CurlRequest } from "./curl.js";

/** The API key and secret of the deployment under test. */
export interface ApiCredentials {
  apiKey: string;
  secret: string;
}

/** Which credentials a request carries. */
export type CredentialVariant =
  "valid" | "none" | "wrong-key" | "wrong-secret" | "wrong-signature" | "signature-over-other-bytes";

/** The variants the auth phase sends to an operation of each kind. */
export const AUTH_VARIANTS: Record<"v2" | "v4", CredentialVariant[]> = {
  v2: ["none", "wrong-key", "wrong-secret"],
  v4: ["none", "wrong-key", "wrong-secret", "wrong-signature", "signature-over-other-bytes"],
};

/** What the wrong credentials are: values of the test's own making, never derived from the real ones. */
const wrong = (what: string): string => `idv-probe-wrong-${what}-${randomBytes(8).toString("hex")}`;

/** Headers carrying credentials, and how the reproducer writes them (variables for the real ones). */
export function credentialHeaders(
  auth: "v2" | "v4" | "none",
  credentials: ApiCredentials | undefined,
  variant: CredentialVariant,
  body: Buffer,
): { headers: [string, string][]; curl: CurlHeader[]; sign?: CurlRequest["sign"] } {
  if (auth === "none" || variant === "none" || !credentials) return { headers: [], curl: [] };
  const keyValue = variant === "wrong-key" ? wrong("key") : credentials.apiKey;
  const key: CurlHeader = [
    "Svc-API-Key",
    variant === "wrong-key" ? { literal: keyValue } : { shell: "$IDV_API_KEY" },
  ];
  if (auth === "v2") {
    const secret = variant === "wrong-secret" ? wrong("secret") : credentials.secret;
    return {
      headers: [
        ["Svc-API-Key", keyValue],
        ["Svc-Secret", secret],
      ],
      curl: [
        key,
        ["Svc-Secret", variant === "wrong-secret" ? { literal: secret } : { shell: "$IDV_API_SECRET" }],
      ],
    };
  }
  const date = new Date().toISOString();
  let signature: string;
  let curlSignature: CurlHeader[1] = { shell: "$SIG" };
  let sign: CurlRequest["sign"] = {};
  if (variant === "wrong-secret") {
    // Signed correctly, with a secret that is not the deployment's.
    signature = hmacSigning(wrong("secret"))(date, body);
    curlSignature = { literal: signature };
    sign = undefined;
  } else if (variant === "wrong-signature") {
    signature = randomBytes(32).toString("hex");
    curlSignature = { literal: signature };
    sign = undefined;
  } else if (variant === "signature-over-other-bytes") {
    // The right secret over bytes that are not the body: what a proxy that rewrites bodies produces.
    signature = hmacSigning(credentials.secret)(date, Buffer.concat([body, Buffer.from("x")]));
    sign = { extra: "x" };
  } else {
    signature = hmacSigning(credentials.secret)(date, body);
  }
  return {
    headers: [
      ["Svc-API-Key", keyValue],
      ["Svc-Date", date],
      ["Svc-Signature", signature],
    ],
    curl: [
      key,
      ["Svc-Date", sign ? { shell: "$DATE" } : { literal: date }],
      ["Svc-Signature", curlSignature],
    ],
    ...(sign ? { sign } : {}),
  };
}
