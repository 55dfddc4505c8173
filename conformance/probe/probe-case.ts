// What the probe's phases are made of: the options, one request (a case) and what it expects, and a
// request sent with its answer. Kept apart from the session so that the phases' case makers and the
// session import these types, never each other.
import type { Json } from "../../src/contract/json.js";
import type { HarRecorder } from "../proxy/har.js";
import type { ConformanceChecker } from "../run/open-checker.js";
import type { ActiveCheckName } from "./active-checks.js";
import type { ActiveResult } from "./active-report.js";
import type { ApiCredentials, CredentialVariant } from "./credentials.js";
import type { Answer } from "./http-send.js";
import type { ProbeOperation } from "./contract-operations.js";
import type { BodyBytes } from "./request-body.js";

/** The phases, in the order they run. */
export const PHASES = ["examples", "negative", "auth", "stateful", "generative"] as const;
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
  /** The checker of `document` (see openProbeChecker), shared with the recorder; opened when omitted. */
  checker?: ConformanceChecker;
  onResult?: (result: ActiveResult) => void;
  /** The public address a deployment sends its webhook events to, forwarded to `receiverPort`. */
  receiverUrl?: URL;
  /** The port of the probe's local listener of events (0: any free one). */
  receiverPort?: number;
  /** How long an awaited event is waited for at a deployment (DEFAULT_EVENT_TIMEOUT_MS). */
  eventTimeoutMs?: number;
  /** Told the local listener's address once it listens (before any workflow runs). */
  onReceiverListening?: (localUrl: string) => void;
  /** The generative phase's time budget (DEFAULT_GENERATIVE_MS), spread over its properties. */
  generativeMs?: number;
}

/** How long the generative phase runs by default. */
export const DEFAULT_GENERATIVE_MS = 60_000;

/** How long an awaited event is waited for at a deployment by default. */
export const DEFAULT_EVENT_TIMEOUT_MS = 60_000;

/** What a request expects beyond the suite's checks. */
export type Expectation =
  | { kind: "any" }
  | { kind: "accepted"; check: ActiveCheckName }
  | { kind: "client-error"; check: ActiveCheckName }
  | { kind: "status"; status: number; check: ActiveCheckName; code?: string }
  | { kind: "not-status"; status: number; check: ActiveCheckName };

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
  /** The request breaks the contract on purpose: only the answer is judged. */
  breaksContract?: boolean;
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

/** The marker every record the probe creates carries in its `reference`. */
export const probeMarker = (seed: number): string => `idv-conformance-probe-run-${seed}`;

/** Whether a method changes nothing (what --read-only allows). */
export const isSafeMethod = (method: string): boolean => method === "GET" || method === "HEAD";
