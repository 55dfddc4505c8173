// Before the probe sends any case: does the deployment answer, and does it accept the credentials?
// One GET of each kind of signing (v4 and v2) on an id no deployment has; nothing is created, and
// the answers are neither judged nor recorded. Without this, an unreachable deployment or a wrong
// secret failed every one of hundreds of cases, each its own lines in the report.
import type { Json } from "../checks/contract-model.js";
import { type ApiCredentials, credentialHeaders } from "./credentials.js";
import { send } from "./http-send.js";
import { probeOperations } from "./contract-operations.js";
import { unknownId } from "./safety.js";

/** What the preflight needs. */
export interface PreflightOptions {
  baseUrl: URL;
  credentials: ApiCredentials;
  timeoutMs: number;
  document: Json;
}

/**
 * Undefined when the deployment answered and took the credentials; else one line saying which: it
 * could not be reached, or it refused the credentials (401). Any other answer, a 5xx too, is left to
 * the cases to judge.
 */
export async function preflight(options: PreflightOptions): Promise<string | undefined> {
  const ops = probeOperations(options.document);
  const probes = (["v4", "v2"] as const)
    .map((auth) => ops.find((op) => op.auth === auth && op.method === "GET"))
    .filter((op) => op !== undefined);
  const prefix = options.baseUrl.pathname.replace(/\/+$/, "");
  const target = `${options.baseUrl.origin}${options.baseUrl.pathname}`;
  for (const op of probes) {
    const path = op.template.replace(/\{([^}]+)\}/g, (_, name: string) =>
      encodeURIComponent(unknownId(op.pathParams.find((p) => p.name === name)?.schema, Math.random)),
    );
    const { headers } = credentialHeaders(op.auth, options.credentials, "valid", Buffer.alloc(0));
    const answer = await send(
      {
        method: "GET",
        url: new URL(`${prefix}${path}`, options.baseUrl.origin),
        headers: [["Accept", "application/json, */*"], ...headers],
      },
      { timeoutMs: options.timeoutMs, maxBodyBytes: 64 * 1024 },
    );
    if (answer.status === 0)
      return `cannot reach ${target}: ${
        answer.failure === "refused"
          ? "the connection was refused (is the deployment running?)"
          : answer.failure === "timeout"
            ? `no answer within ${options.timeoutMs} ms`
            : "the connection closed without an answer"
      }`;
    if (answer.status === 401)
      return `${target} refused the credentials: GET ${op.template} (${op.auth === "v4" ? "v4, signed with the secret" : "v2, key and secret"}) was answered 401; check IDV_API_KEY and IDV_API_SECRET (or --key and --secret)`;
  }
  return undefined;
}
