// The probe's session: the budget, the suite's checker, the recording and every result. Each case is
// sent, its answer judged (judge-answer.ts) and recorded with the verdict on it.
import type { Json } from "../../src/contract/json.js";
import type { Exchange } from "../traffic/exchange.js";
import { bundledContract } from "../checks/load-contract.js";
import { type ConformanceChecker, openConformanceChecker } from "../run/open-checker.js";
import type { EntryResult } from "../findings/findings.js";
import type { ActiveFinding, ActiveResult } from "./active-report.js";
import { credentialHeaders } from "./credentials.js";
import { type CurlHeader, curlCommand } from "./curl.js";
import { type Answer, send } from "./http-send.js";
import type { ProbeOperation } from "./contract-operations.js";
import { type BodyBytes, exampleBody } from "./request-body.js";
import { type Judged, judgeAnswer, jsonOf, MAX_ANSWER_BYTES, unanswered } from "./judge-answer.js";
import { type ProbeCase, type ProbeOptions, probeMarker, type Sent } from "./probe-case.js";
import { seededRandom } from "./seeded-random.js";

/** A short integer id or a UUID: what the contract's paths carry, never personal data. */
const ID_VALUE = /^(0|[1-9][0-9]{0,11}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;
/** What a reproducer prints in place of a path value that is not an id. */
const REDACTED_SEGMENT = "[redacted]";

type Credentials = ReturnType<typeof credentialHeaders>;

/** Findings of a caller's own about an answer and its parsed JSON body. */
export type MoreFindings = (answer: Answer, json: unknown) => ActiveFinding[];

/** The suite's checker of a contract for a deployment at `baseUrl` (its path is a base path). */
export function openProbeChecker(document: Json, baseUrl: URL): Promise<ConformanceChecker> {
  const prefix = baseUrl.pathname.replace(/\/+$/, "");
  return openConformanceChecker({ spec: document, ...(prefix ? { basePaths: [prefix] } : {}) });
}

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
    private readonly checker: ConformanceChecker,
    document: Json,
  ) {
    this.random = seededRandom(options.seed);
    this.marker = probeMarker(options.seed);
    this.document = document;
    this.prefix = options.baseUrl.pathname.replace(/\/+$/, "");
  }

  /** A session over the options' contract, judged by the options' checker (or one opened for it). */
  static async open(options: ProbeOptions): Promise<ProbeSession> {
    const document = options.document ?? bundledContract();
    const checker = options.checker ?? (await openProbeChecker(document, options.baseUrl));
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

  /** Keep a result no request of the session made (an awaited event), counted as sent ones are. */
  add(result: ActiveResult): void {
    if (!result.ok) this.failed++;
    this.results.push(result);
    this.options.onResult?.(result);
  }

  /** The path of an operation with its parameters filled in (`shown`: as a report may print it). */
  pathOf(op: ProbeOperation, params: Map<string, string>, shown = false): string {
    return `${this.prefix}${op.template.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const value = params.get(name) ?? "";
      // A value the deployment sent (a link's) is printed only when it is an id, as recordings keep them.
      return shown && !ID_VALUE.test(value) ? REDACTED_SEGMENT : encodeURIComponent(value);
    })}`;
  }

  /** Requests the budget still allows. */
  get spare(): number {
    return Math.max(0, this.options.maxRequests - this.sent);
  }

  /**
   * Send one case, judge the answer, record it; undefined when the budget is spent. `more` adds
   * findings of the caller's (a workflow step's criteria) to the verdict. A `quiet` case (a
   * shrinking step) is sent and recorded, but its result is the caller's to report or drop.
   */
  async run(c: ProbeCase, more?: MoreFindings, quiet = false): Promise<Sent | undefined> {
    if (!this.take()) return undefined;
    const body = c.body?.bytes;
    const url = new URL(this.pathOf(c.op, c.params), this.options.baseUrl.origin);
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
      { timeoutMs: this.options.timeoutMs, maxBodyBytes: MAX_ANSWER_BYTES },
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
    let json: unknown;
    let judged: Judged;
    if (answer.status === 0) {
      record();
      judged = { violations: [unanswered(answer, this.options.timeoutMs)], warnings: [] };
    } else {
      const verdict = this.verdict(c, url, requestHeaders, answer, body);
      // A truncated answer was judged by its start: no verdict the recording could be held to.
      record(answer.truncated ? undefined : verdict);
      json = jsonOf(answer);
      judged = judgeAnswer(c, answer, verdict, json);
      judged.violations.push(...(more?.(answer, json) ?? []));
    }
    await this.options.recorder?.ready();
    return this.conclude(c, answer, judged, creds, { requestHeaders, json }, quiet);
  }

  /** The suite's verdict on an exchange; undefined when the body was too costly to check. */
  private verdict(
    c: ProbeCase,
    url: URL,
    requestHeaders: Map<string, string>,
    answer: Answer,
    body: Buffer | undefined,
  ): EntryResult | undefined {
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
    try {
      return this.checker.checkExchange(exchange);
    } catch {
      return undefined;
    }
  }

  /** The result of a case: kept, reported, and with a reproducer when it failed. */
  private conclude(
    c: ProbeCase,
    answer: Answer,
    judged: Judged,
    creds: Credentials,
    sent: { requestHeaders: Map<string, string>; json: unknown },
    quiet: boolean,
  ): Sent {
    const result: ActiveResult = {
      phase: c.phase,
      case: c.case,
      operationId: c.op.operationId,
      method: c.op.method,
      path: c.op.template,
      status: answer.status,
      ms: Math.round(answer.ms * 10) / 10,
      ok: judged.violations.length === 0,
      violations: judged.violations,
      warnings: judged.warnings,
    };
    const shownUrl = new URL(this.pathOf(c.op, c.params, true), this.options.baseUrl.origin);
    const reproduce = () => this.reproducer(c, shownUrl, creds);
    if (!result.ok) result.curl = reproduce();
    if (!quiet) this.add(result);
    return { probeCase: c, answer, result, ...sent, reproduce };
  }

  private reproducer(c: ProbeCase, url: URL, creds: Credentials): string {
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

  /** The first example body of an operation (the one without a phone number when there is a choice). */
  bodyFor(op: ProbeOperation): { body?: BodyBytes } {
    if (!op.body) return {};
    const examples = op.body.examples;
    const quiet =
      examples.find((e) => !JSON.stringify(e.value ?? null).includes("contact_phone")) ?? examples[0];
    return { body: exampleBody(op.body.mediaType, quiet?.value ?? {}, this.marker, op.body.schema) };
  }
}
