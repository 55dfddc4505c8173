// Before the probe sends any case: does the deployment answer, is it this API at this base URL, and
// does it accept the credentials? One GET of each kind of signing (v4 and v2) on an id no deployment
// has, then the same GETs without credentials; nothing is created, and the answers are neither
// judged nor recorded. Without this, an unreachable deployment, a wrong secret or a wrong base URL
// (a path prefix too many, another server) failed every one of hundreds of cases, each its own lines.
import type { Json } from "../checks/contract-model.js";
import { type ApiCredentials, credentialHeaders } from "./credentials.js";
import { type Answer, send } from "./http-send.js";
import { baseUrlHint, documentedAnswers, notThisApi } from "./preflight-shape.js";
import { probeOperations } from "./contract-operations.js";
import { unknownId } from "./safety.js";

/** What the preflight needs. */
export interface PreflightOptions {
  baseUrl: URL;
  credentials: ApiCredentials;
  timeoutMs: number;
  document: Json;
}

/** The one line for a deployment that could not be reached. */
function unreachable(target: string, answer: Answer, timeoutMs: number): string {
  return `cannot reach ${target}: ${
    answer.failure === "refused"
      ? "the connection was refused (is the deployment running?)"
      : answer.failure === "timeout"
        ? `no answer within ${timeoutMs} ms`
        : "the connection closed without an answer"
  }`;
}

/**
 * Undefined when the deployment answered as this API and took the credentials; else one line saying
 * which: it could not be reached, no answer was this API's (every one a 404, or statuses and media
 * types the contract does not give), or it refused the credentials (401). Any other answer, a 5xx
 * too, is left to the cases to judge.
 */
export async function preflight(options: PreflightOptions): Promise<string | undefined> {
  const ops = probeOperations(options.document);
  const probes = (["v4", "v2"] as const)
    .map((auth) => ops.find((op) => op.auth === auth && op.method === "GET"))
    .filter((op) => op !== undefined);
  const prefix = options.baseUrl.pathname.replace(/\/+$/, "");
  const target = `${options.baseUrl.origin}${options.baseUrl.pathname}`;
  const limits = { timeoutMs: options.timeoutMs, maxBodyBytes: 64 * 1024 };
  const answers: { answer: Answer; template: string; signed: boolean; why: string | undefined }[] = [];
  for (const signed of [true, false])
    for (const op of probes) {
      const path = op.template.replace(/\{([^}]+)\}/g, (_, name: string) =>
        encodeURIComponent(unknownId(op.pathParams.find((p) => p.name === name)?.schema, Math.random)),
      );
      // Without credentials a route of this API answers its 401 (or 400, 403): a 404 there is no route.
      const headers = signed
        ? credentialHeaders(op.auth, options.credentials, "valid", Buffer.alloc(0)).headers
        : [];
      const answer = await send(
        {
          method: "GET",
          url: new URL(`${prefix}${path}`, options.baseUrl.origin),
          headers: [["Accept", "application/json, */*"], ...headers],
        },
        limits,
      );
      if (answer.status === 0) return unreachable(target, answer, options.timeoutMs);
      const why = notThisApi(answer, documentedAnswers(options.document, op.method, op.template));
      answers.push({ answer, template: op.template, signed, why });
    }
  if (answers.length > 0 && answers.every((a) => a.why !== undefined)) {
    const odd = answers.find((a) => a.why !== "404");
    const what = odd
      ? `no answer was this API's (e.g. GET ${odd.template} answered ${odd.why})`
      : `every known route answered 404 (${answers.length} GETs, e.g. ${answers[0]!.template})`;
    return `${target} does not answer as this API: ${what}; ${baseUrlHint(
      options.baseUrl,
      probes.map((op) => op.template),
    )}`;
  }
  for (const { answer, template, signed } of answers) {
    if (!signed || answer.status !== 401) continue;
    const auth = probes.find((op) => op.template === template)!.auth;
    return `${target} refused the credentials: GET ${template} (${auth === "v4" ? "v4, signed with the secret" : "v2, key and secret"}) was answered 401; check IDV_API_KEY and IDV_API_SECRET (or --key and --secret)`;
  }
  return undefined;
}
