import type { Vocabulary } from "./vocabulary.js";

/** Where in an exchange or delivery a finding points. */
export type FindingLocation =
  | "entry"
  | "request.route"
  | "request.header"
  | "request.parameter"
  | "request.body"
  | "response.status"
  | "response.header"
  | "response.body"
  | "delivery.channel"
  | "delivery.header"
  | "delivery.body";

/** The name of the check that made a finding; each is named after what it asserts. */
export type CheckName =
  | "entry_readable"
  | "route_known"
  | "request_content_type"
  | "request_body_schema"
  | "request_parameters"
  | "auth_headers_present"
  | "status_code_documented"
  | "response_content_type"
  | "response_body_schema"
  | "response_headers"
  | "error_shape"
  | "channel_known"
  | "payload_schema"
  | "required_headers"
  | "value_withheld";

/** A violation or warning: where, which check, a JSON pointer into that part, and why. No recorded values. */
export interface Finding {
  in: FindingLocation;
  check: CheckName;
  pointer: string;
  message: string;
}

/** The verdict on one exchange or delivery. */
export interface EntryResult {
  /** The file the entry was read from. */
  file?: string;
  index: number;
  line?: number;
  method: string;
  /**
   * The operation's path template (`/api/v4/outsource_cases/{id}`) when the route is known; else the
   * recorded path with every segment the contract does not write shown as `{…}`. Never a recorded value.
   */
  path: string;
  /** The operation (or, for a delivery, the message) it matched; null when none. */
  operationId: string | null;
  /**
   * The recorded response's status, when an exchange matched an operation and has one: which
   * documented response the response findings are about (a SARIF result points at it).
   */
  status?: number;
  ok: boolean;
  violations: Finding[];
  warnings: Finding[];
  /**
   * Locations whose values the recording withheld (no stand-in is judged as they were): the findings
   * there are those the live check made, as the recording carries them (findings/withheld.ts).
   */
  withheld?: { in: FindingLocation; pointer: string }[];
}

/** Totals of a run. */
export interface Summary {
  entries: number;
  passed: number;
  failed: number;
  warnings: number;
}

/**
 * Collects the findings of one entry. Every pointer passes through the contract's vocabulary here, the
 * one place findings are made: a token the contract does not write came from the recording.
 */
export class FindingList {
  readonly violations: Finding[] = [];
  readonly warnings: Finding[] = [];

  constructor(private readonly vocabulary?: Vocabulary) {}

  /** Record a violation. */
  fail(where: FindingLocation, check: CheckName, pointer: string, message: string): void {
    this.violations.push({ in: where, check, pointer: this.safe(pointer), message });
  }

  /** Record a warning. */
  warn(where: FindingLocation, check: CheckName, pointer: string, message: string): void {
    this.warnings.push({ in: where, check, pointer: this.safe(pointer), message });
  }

  private safe(pointer: string): string {
    return this.vocabulary ? this.vocabulary.pointer(pointer) : pointer;
  }
}
