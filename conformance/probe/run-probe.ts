// The probe: requests made from the contract, sent to a deployment, every answer judged by the
// suite's checks (the same ones `check` runs on recorded traffic) and by what each phase expects.
import type { Json } from "../checks/contract-model.js";
import { type Exchange, NOT_JSON, parseJson } from "../traffic/exchange.js";
import { bundledContract } from "../checks/load-contract.js";
import { openConformanceChecker } from "../run/open-checker.js";
import type { HarRecorder } from "../proxy/har.js";
import type { EntryResult } from "../findings/findings.js";
import type { ActiveFinding, ActiveResult } from "./active-report.js";
import { type ApiCredentials, type CredentialVariant, credentialHeaders } from "./credentials.js";
import { type CurlHeader, curlCommand } from "./curl.js";
import { type Answer, send } from "./http-send.js";
import { type ProbeOperation, probeOperations } from "./contract-operations.js";
import { type BodyBytes, exampleBody } from "./request-body.js";
import { evaluate } from "./runtime-expression.js";
import { isLoopback } from "./safety.js";
import { plainCases } from "./plain-cases.js";
import { statefulFlows } from "./stateful-flows.js";

/** The phases, in the order they run. */
export const PHASES = ["examples", "negative", "auth", "stateful"] as const;
/** A phase of the probe. */
export type Phase = (typeof PHASES)[number];

/** What to probe and how. */
export interface ProbeOptions {
  baseUrl: URL;
  credentials?: ApiCredentials;
  phases: Phase[];
  /** Only these operations (all when undefined). */
  operations?: Set<string>;
  seed: number;
  /** Requests sent at most. */
  maxRequests: number;
  /** Once this many requests have failed, no more are sent. */
  maxFailures?: number;
  concurrency: number;
  /** Only safe methods (GET). */
  readOnly: boolean;
  timeoutMs: number;
  recorder?: HarRecorder;
  /** The contract (the bundled one by default). */
  document?: Json;
  onResult?: (result: ActiveResult) => void;
}

/** What a request expects beyond the suite's checks. */
export type Expectation =
  | { kind: "any" }
  | { kind: "accepted"; check: string }
  | { kind: "client-error"; check: string }
  | { kind: "status"; status: number; check: string; code?: string }
  | { kind: "not-status"; status: number; check: string };

/** One request of the probe. */
export interface ProbeCase {
  phase: Phase;
  case: string;
  op: ProbeOperation;
  params: Map<string, string>;
  body?: BodyBytes;
  credentials: CredentialVariant;
  extraHeaders?: [string, string][];
  expect: Expectation;
}

/** A request sent and its answer, for a flow's next step. */
export interface Sent {
  probeCase: ProbeCase;
  answer: Answer;
  result: ActiveResult;
  requestHeaders: Map<string, string>;
  /** The answer's JSON body, when it had one. */
  json: unknown;
  /** The reproducer of this request. */
  reproduce: () => string;
}

/** A short integer id or a UUID: what the contract's paths carry, never personal data. */
const ID_VALUE = /^(0|[1-9][0-9]{0,11}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;
/** What a reproducer prints in place of a path value that is not an id. */
const REDACTED_SEGMENT = "[redacted]";
/** A link's value longer than this is not followed (no id is this long). */
export const MAX_LINK_VALUE = 256;

/** Bytes of an answer's body kept: more than any PDF or zip the contract describes is not needed to judge it. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/** A small seeded generator (mulberry32): the same seed makes the same choices. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The marker every record the probe creates carries in its `reference`. */
export const probeMarker = (seed: number): string => `idv-conformance-probe-run-${seed}`;

/** Whether a method changes nothing (what --read-only allows). */
export const isSafeMethod = (method: string): boolean => method === "GET" || method === "HEAD";

/** The probe's session: the budget, the checker, the recording and every result. */
export class ProbeSession {
  readonly results: ActiveResult[] = [];
  readonly notes: string[] = [];
  readonly random: () => number;
  readonly marker: string;
  readonly document: Json;
  private sent = 0;
  private failed = 0;
  private budgetNoted = false;
  private readonly prefix: string;

  private constructor(
    readonly options: ProbeOptions,
    private readonly checker: Awaited<ReturnType<typeof openConformanceChecker>>,
    document: Json,
  ) {
    this.random = seededRandom(options.seed);
    this.marker = probeMarker(options.seed);
    this.document = document;
    this.prefix = options.baseUrl.pathname.replace(/\/+$/, "");
  }

  /** A session over the options' contract. */
  static async open(options: ProbeOptions): Promise<ProbeSession> {
    const document = options.document ?? bundledContract();
    const prefix = options.baseUrl.pathname.replace(/\/+$/, "");
    const checker = await openConformanceChecker({
      spec: document,
      ...(prefix ? { basePaths: [prefix] } : {}),
    });
    return new ProbeSession(options, checker, document);
  }

  /** Whether the budgets allow one more request (notes it once when not). */
  private take(): boolean {
    const maxFailures = this.options.maxFailures;
    if (maxFailures !== undefined && this.failed >= maxFailures) {
      if (!this.budgetNoted)
        this.notes.push(`--max-failures ${maxFailures} reached: the requests after it were not sent`);
      this.budgetNoted = true;
      return false;
    }
    if (this.sent < this.options.maxRequests) {
      this.sent++;
      return true;
    }
    if (!this.budgetNoted)
      this.notes.push(
        `--max-requests ${this.options.maxRequests} reached: the requests after it were not sent`,
      );
    this.budgetNoted = true;
    return false;
  }

  /** The path of an operation with its parameters filled in (`shown`: as a report may print it). */
  pathOf(op: ProbeOperation, params: Map<string, string>, shown = false): string {
    return `${this.prefix}${op.template.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const value = params.get(name) ?? "";
      // A value the deployment sent (a link's) is printed only when it is an id, as recordings keep them.
      return shown && !ID_VALUE.test(value) ? REDACTED_SEGMENT : encodeURIComponent(value);
    })}`;
  }

  /** Send one case, judge the answer, record it; undefined when the budget is spent. */
  async run(c: ProbeCase): Promise<Sent | undefined> {
    if (!this.take()) return undefined;
    const body = c.body?.bytes;
    const path = this.pathOf(c.op, c.params);
    const url = new URL(path, this.options.baseUrl.origin);
    const creds = credentialHeaders(
      c.op.auth,
      this.options.credentials,
      c.credentials,
      body ?? Buffer.alloc(0),
    );
    const headers: [string, string][] = [
      ["Accept", "application/json, application/pdf, application/zip, */*"],
    ];
    if (c.body) headers.push(["Content-Type", c.body.contentType]);
    headers.push(...creds.headers, ...(c.extraHeaders ?? []));
    const startedAt = new Date();
    const answer = await send(
      { method: c.op.method, url, headers, ...(body ? { body } : {}) },
      {
        timeoutMs: this.options.timeoutMs,
        maxBodyBytes: MAX_ANSWER_BYTES,
      },
    );
    const requestHeaders = new Map(headers.map(([n, v]) => [n.toLowerCase(), v]));
    // Recorded once judged, with the suite's verdict on it: the recording is made to be judged the same.
    const record = (verdict?: EntryResult) =>
      this.options.recorder?.add({
        startedAt,
        durationMs: answer.ms,
        method: c.op.method,
        target: { origin: url.origin, pathname: url.pathname, query: "" },
        request: { headers, ...(body ? { body } : {}), size: body?.length ?? 0 },
        status: answer.status,
        response: { headers: Object.entries(answer.headers), body: answer.body, size: answer.body.length },
        basePath: this.prefix,
        ...(verdict ? { verdict } : {}),
      });
    const violations: ActiveFinding[] = [];
    const warnings: ActiveFinding[] = [];
    let json: unknown;
    if (answer.status === 0) {
      record();
      violations.push({
        in: "response.status",
        check: "answered",
        pointer: "",
        message:
          answer.failure === "timeout"
            ? `no answer within ${this.options.timeoutMs} ms`
            : answer.failure === "refused"
              ? "the connection was refused: nothing listens at --base-url"
              : "the connection closed without an answer",
      });
    } else {
      const exchange: Exchange = {
        index: this.results.length,
        request: {
          method: c.op.method,
          path: url.pathname,
          query: Object.create(null),
          headers: Object.fromEntries(requestHeaders),
          ...(body ? { body: { kind: "bytes" as const, bytes: body } } : {}),
        },
        response: {
          status: answer.status,
          headers: answer.headers,
          body: { kind: "bytes", bytes: answer.body },
        },
      };
      let verdict: EntryResult | undefined;
      try {
        verdict = this.checker.checkExchange(exchange);
      } catch {
        verdict = undefined;
      }
      // A truncated answer was judged by its start: no verdict the recording could be held to.
      record(answer.truncated ? undefined : verdict);
      let judged: { violations: ActiveFinding[]; warnings: ActiveFinding[] };
      if (verdict) judged = verdict;
      else {
        // A body too costly to parse (the deployment's bytes): say so, never crash.
        judged = {
          violations: [
            {
              in: "response.body",
              check: "response_body_schema",
              pointer: "",
              message: "the body is too large or too deeply nested to check",
            },
          ],
          warnings: [],
        };
      }
      // A negative or auth request breaks the contract on purpose: only the answer is judged.
      const answerOnly = c.phase === "negative" || c.phase === "auth";
      const keep = (f: ActiveFinding) => !answerOnly || !f.in.startsWith("request.");
      violations.push(...judged.violations.filter(keep));
      warnings.push(...judged.warnings.filter(keep));
      if (answer.truncated)
        warnings.push({
          in: "response.body",
          check: "response_body_schema",
          pointer: "",
          message: `the body is over ${MAX_ANSWER_BYTES} bytes; only its start was checked`,
        });
      if (answer.status >= 500)
        violations.push({
          in: "response.status",
          check: "no_server_error",
          pointer: "",
          message: `answered ${answer.status}: a server error`,
        });
      json = this.jsonOf(answer);
      violations.push(...this.expectation(c, answer, json));
    }
    await this.options.recorder?.ready();
    const result: ActiveResult = {
      phase: c.phase,
      case: c.case,
      operationId: c.op.operationId,
      method: c.op.method,
      path: c.op.template,
      status: answer.status,
      ms: Math.round(answer.ms * 10) / 10,
      ok: violations.length === 0,
      violations,
      warnings,
    };
    const shownUrl = new URL(this.pathOf(c.op, c.params, true), this.options.baseUrl.origin);
    const reproduce = () => this.reproducer(c, shownUrl, creds);
    if (!result.ok) {
      result.curl = reproduce();
      this.failed++;
    }
    this.results.push(result);
    this.options.onResult?.(result);
    return { probeCase: c, answer, result, requestHeaders, json, reproduce };
  }

  /** The JSON body of an answer, or undefined (not JSON, or too costly to parse). */
  private jsonOf(answer: Answer): unknown {
    if (!(answer.headers["content-type"] ?? "").toLowerCase().includes("json")) return undefined;
    try {
      const value = parseJson({ kind: "bytes", bytes: answer.body });
      return value === NOT_JSON ? undefined : value;
    } catch {
      return undefined;
    }
  }

  private expectation(c: ProbeCase, answer: Answer, json: unknown): ActiveFinding[] {
    const e = c.expect;
    const status = answer.status;
    const fail = (check: string, message: string): ActiveFinding[] => [
      { in: "response.status", check, pointer: "", message },
    ];
    if (e.kind === "any") return [];
    if (e.kind === "accepted")
      return status >= 200 && status < 300 ? [] : fail(e.check, `answered ${status}; expected 2xx`);
    if (e.kind === "client-error") {
      if (status >= 400 && status < 500) return [];
      return fail(
        e.check,
        `answered ${status}; a request that breaks the contract must get a documented 4xx (${c.op.clientErrors.join(", ")})`,
      );
    }
    if (e.kind === "not-status") return status === e.status ? fail(e.check, `answered ${status}`) : [];
    if (status !== e.status) return fail(e.check, `answered ${status}; expected ${e.status}`);
    if (e.code !== undefined) {
      const code =
        json !== null && typeof json === "object" ? (json as { error_code?: unknown }).error_code : undefined;
      // The code is compared, never quoted: only the contract's own word is shown.
      if (code !== e.code)
        return [
          {
            in: "response.body",
            check: e.check,
            pointer: "/error_code",
            message: `expected error_code ${e.code}`,
          },
        ];
    }
    return [];
  }

  private reproducer(c: ProbeCase, url: URL, creds: ReturnType<typeof credentialHeaders>): string {
    const headers: CurlHeader[] = [];
    if (c.body) headers.push(["Content-Type", { literal: c.body.contentType }]);
    headers.push(...creds.curl);
    for (const [n, v] of c.extraHeaders ?? []) headers.push([n, { literal: v }]);
    return curlCommand({
      method: c.op.method,
      url: url.href,
      headers,
      ...(c.body ? { body: c.body.bytes } : {}),
      ...(creds.sign ? { sign: creds.sign } : {}),
    });
  }

  /** The case a link of a sent request leads to, or undefined when the link or a parameter is missing. */
  follow(
    from: Sent,
    linkName: string,
    phase: Phase,
    label: string,
    expect: Expectation,
    byId: Map<string, ProbeOperation>,
  ): ProbeCase | undefined {
    const status = String(from.answer.status);
    const link = (from.probeCase.op.links.get(status) ?? from.probeCase.op.links.get("200"))?.find(
      (l) => l.name === linkName,
    );
    const target = link && byId.get(link.operationId);
    if (!link || !target) return undefined;
    const params = new Map<string, string>();
    for (const [name, expression] of link.parameters) {
      const value = evaluate(expression, {
        pathParams: from.probeCase.params,
        requestHeaders: from.requestHeaders,
        responseHeaders: from.answer.headers,
        responseBody: from.json,
      });
      if (value === undefined || value.length > MAX_LINK_VALUE) return undefined;
      params.set(name, value);
    }
    return { phase, case: label, op: target, params, ...this.bodyFor(target), credentials: "valid", expect };
  }

  /** The first example body of an operation (the one without a phone number when there is a choice). */
  bodyFor(op: ProbeOperation): { body?: BodyBytes } {
    if (!op.body) return {};
    const examples = op.body.examples;
    const quiet =
      examples.find((e) => !JSON.stringify(e.value ?? null).includes("contact_phone")) ?? examples[0];
    return { body: exampleBody(op.body.mediaType, quiet?.value ?? {}, this.marker, op.body.schema) };
  }
}

/** Run up to `concurrency` tasks at once. */
async function pool<T>(tasks: (() => Promise<T>)[], concurrency: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) await tasks[next++]!();
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, tasks.length)) }, worker));
}

/** Run every phase asked for; the results in the order sent within each phase. */
export async function runProbe(options: ProbeOptions): Promise<{ results: ActiveResult[]; notes: string[] }> {
  const session = await ProbeSession.open(options);
  const all = probeOperations(session.document);
  const byId = new Map(all.map((op) => [op.operationId, op]));
  let ops = options.operations ? all.filter((op) => options.operations!.has(op.operationId)) : all;
  if (options.operations)
    for (const id of options.operations)
      if (!byId.has(id))
        session.notes.push(`--operations names ${JSON.stringify(id)}, which the contract does not have`);
  if (options.readOnly) {
    const skipped = ops.filter((op) => !isSafeMethod(op.method)).length;
    ops = ops.filter((op) => isSafeMethod(op.method));
    if (skipped > 0) session.notes.push(`--read-only: ${skipped} operations that change state were not sent`);
  }
  if (!isLoopback(options.baseUrl) && ops.some((op) => op.pathParams.length > 0))
    session.notes.push(
      "not a loopback host: operations on a record were sent ids the deployment cannot have, never the contract's example ids",
    );
  const phases = new Set(options.phases);
  for (const phase of PHASES) {
    if (!phases.has(phase)) continue;
    if (phase === "stateful") {
      await pool(statefulFlows(session, ops, byId), options.concurrency);
    } else {
      const cases = plainCases(session, ops, new Set([phase]));
      await pool(
        cases.map((c) => async () => void (await session.run(c))),
        options.concurrency,
      );
    }
  }
  return { results: session.results, notes: session.notes };
}
