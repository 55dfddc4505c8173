// The biometric verification lifecycle, as the interface document's "States and transitions" table
// has it: created → (pending →) completed pass/review/fail → updated; resend archives the original
// and creates a new one; archived 60 minutes after the PDF is downloaded and at the end of the 7-day
// lifespan; error after 24 hours pending or on an unexpected failure. Every timer is on the virtual clock.
import { randomUUID } from "node:crypto";
import { CONTROL_PREFIX } from "../../http/paths.js";
import type { Journey } from "../magic.js";
import type { BiometricEvent, BiometricRecord, BiometricState, BiometricStatus } from "./record.js";
import { verificationOf } from "./verification.js";

export type { BiometricRecord, BiometricState, BiometricStatus } from "./record.js";

/** What the lifecycle needs from the sandbox around it. */
export interface BiometricContext {
  now(): number;
  after(ms: number, kind: string, ref: string): void;
  /** Schedule at a virtual time (a retry on the schedule of the timer before it). */
  at(at: number, kind: string, ref: string): void;
  cancel(kind: string, ref: string): void;
  /** Send a biometric webhook event (validated against the AsyncAPI contract first). */
  emit(
    record: BiometricRecord,
    event: BiometricEvent,
    verification: Record<string, unknown> | null,
    message: string | null,
  ): void;
  baseUrl(): string;
  changed(): void;
  /** The verifications kept, by transaction id (the record store's slice). */
  records(): ReadonlyMap<string, BiometricRecord>;
  /** Keep a verification just made in the record store. */
  keep(record: BiometricRecord): void;
  /** Erase the personal data from the kept deliveries about a verification (it was archived). */
  eraseDeliveries(transactionId: string): void;
  /** The record grew or shrank (an event added): counted again against the byte budget. */
  resized(record: BiometricRecord): void;
}

/**
 * Events a verification lists at most, the newest kept: edits can be sent without end, and each
 * adds one, so an unbounded history would grow with every request.
 */
export const MAX_EVENTS_KEPT = 100;

/** Timer kinds of this lifecycle. */
export const TIMERS = {
  journey: "bio.journey",
  pendingRetry: "bio.pending-retry",
  pendingTimeout: "bio.pending-timeout",
  archiveAfterDownload: "bio.archive-after-download",
  lifespan: "bio.lifespan",
} as const;

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
/** Archive delay after the PDF is downloaded. */
export const ARCHIVE_AFTER_DOWNLOAD_MS = 60 * MINUTE;
/** A verification's lifespan. */
export const LIFESPAN_MS = 7 * 24 * HOUR;
/** How long a pending verification is retried before it errors. */
export const PENDING_WINDOW_MS = 24 * HOUR;
/** The interval of pending retries (the document says "periodically"; this is the sandbox's choice). */
export const PENDING_RETRY_MS = 4 * HOUR;
/** The messages the service's pending and error events carry (the sandbox's own words). */
export const EVENT_MESSAGES = {
  pending: "A data source is unavailable; the verification will be retried.",
  error: "An unexpected processing error occurred; create a new verification.",
} as const;

/** Why a transition was refused: the record is in the wrong state for it. */
export class TransitionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TransitionError";
  }
}

const LIVE: readonly BiometricState[] = ["created", "pending", "completed"];

export class BiometricLifecycle {
  /** The verifications, by transaction id: a read-only view of their slice of the record store. */
  get records(): ReadonlyMap<string, BiometricRecord> {
    return this.ctx.records();
  }

  constructor(
    private readonly ctx: BiometricContext,
    /** Real-time delay of a magic journey's steps (the whole journey ends within twice this). */
    private readonly journeyDelayMs: number,
  ) {}

  /** POST /api/v2/send_text: a new verification in created, and its created event. */
  create(input: {
    reference: string;
    external_id?: string;
    contact_phone?: string;
    firstname?: string;
    lastname?: string;
    sendSms: boolean;
    journey?: Journey;
    replaces?: string;
    /** Made for a triggered event: no created event of its own. */
    silent?: boolean;
  }): BiometricRecord {
    const id = randomUUID();
    const at = this.iso();
    const record: BiometricRecord = {
      transaction_id: id,
      reference: input.reference,
      external_id: input.external_id ?? null,
      phone_number: input.contact_phone ? `+${input.contact_phone}` : null,
      firstname: input.firstname ?? null,
      lastname: input.lastname ?? null,
      start_process_url: input.sendSms
        ? null
        : `${this.ctx.baseUrl()}${CONTROL_PREFIX}/biometric_verifications/${id}`,
      state: "created",
      status: null,
      reviewed: false,
      notes: null,
      journey: input.journey ?? null,
      pending_retry: null,
      pending_since: null,
      created_at: at,
      updated_at: at,
      pdf_downloaded_at: null,
      replaced_by: null,
      replaces: input.replaces ?? null,
      verification: null,
      events: [],
    };
    if (!input.silent) this.send(record, "created");
    this.ctx.after(LIFESPAN_MS, TIMERS.lifespan, id);
    if (record.journey) this.ctx.after(this.firstStepDelay(record.journey), TIMERS.journey, id);
    // Kept once made, its created event queued: the store counts it, the saver is told.
    this.ctx.keep(record);
    return record;
  }

  /** PUT /api/v2/resend_text/:id: archive the original (in created only) and create its replacement. */
  resend(id: string, contactPhone?: string): BiometricRecord {
    const original = this.get(id);
    if (original.state !== "created") {
      throw new TransitionError(
        `Only a verification in the created state can be resent; this one is ${original.state}.`,
      );
    }
    const phone = contactPhone ?? original.phone_number?.slice(1);
    const replacement = this.create({
      reference: original.reference,
      ...(original.external_id === null ? {} : { external_id: original.external_id }),
      ...(phone ? { contact_phone: phone } : {}),
      ...(original.firstname === null ? {} : { firstname: original.firstname }),
      ...(original.lastname === null ? {} : { lastname: original.lastname }),
      sendSms: original.start_process_url === null,
      ...(original.journey ? { journey: original.journey } : {}),
      replaces: original.transaction_id,
    });
    original.replaced_by = replacement.transaction_id;
    this.archive(original);
    return replacement;
  }

  /** The record, or a TransitionError-free lookup failure (undefined). */
  find(id: string): BiometricRecord | undefined {
    return this.records.get(id);
  }

  /** Finish a verification in created or pending with a status: the completed event. */
  complete(id: string, status: BiometricStatus): BiometricRecord {
    const record = this.get(id);
    this.expect(record, ["created", "pending"], "complete");
    this.ctx.cancel(TIMERS.pendingRetry, id);
    this.ctx.cancel(TIMERS.pendingTimeout, id);
    this.ctx.cancel(TIMERS.journey, id);
    record.state = "completed";
    record.status = status;
    record.pending_retry = null;
    record.verification = this.result(record);
    this.send(record, "completed", record.verification);
    return record;
  }

  /** Data sources unavailable: created → pending, retried every 4 hours for 24 hours. */
  pend(id: string, retry: "succeed" | "fail" = "fail"): BiometricRecord {
    const record = this.get(id);
    this.expect(record, ["created"], "move to pending");
    record.state = "pending";
    record.pending_retry = retry;
    record.pending_since = this.iso();
    this.send(record, "pending", null, EVENT_MESSAGES.pending);
    const delay = retry === "succeed" && record.journey ? this.journeyDelayMs : PENDING_RETRY_MS;
    this.ctx.after(delay, TIMERS.pendingRetry, id);
    this.ctx.after(PENDING_WINDOW_MS, TIMERS.pendingTimeout, id);
    return record;
  }

  /** An agent's review of a review-status verification: pass or fail, reviewed, the updated event. */
  review(id: string, status: "pass" | "fail"): BiometricRecord {
    const record = this.get(id);
    this.expect(record, ["completed"], "review");
    if (record.status !== "review") {
      throw new TransitionError(
        `Only a verification with status review can be reviewed; this one is ${record.status}.`,
      );
    }
    record.status = status;
    record.reviewed = true;
    record.verification = this.updatedResult(record);
    this.send(record, "updated", record.verification);
    return record;
  }

  /** A user edits, reviews or adds notes in the web application: the updated event. */
  edit(id: string, notes: string | null): BiometricRecord {
    const record = this.get(id);
    this.expect(record, ["completed"], "edit");
    record.notes = notes;
    record.verification = this.updatedResult(record);
    this.send(record, "updated", record.verification);
    return record;
  }

  /** Whether the PDF can be downloaded now; the refusal's code and message otherwise. */
  pdfRefusal(
    record: BiometricRecord,
  ): { code: "ALREADY_ARCHIVED" | "NOT_COMPLETED"; message: string } | undefined {
    if (record.state === "archived")
      return { code: "ALREADY_ARCHIVED", message: "The verification is archived and its data erased." };
    if (record.state !== "completed")
      return { code: "NOT_COMPLETED", message: `The verification is not completed (it is ${record.state}).` };
    if (record.status === "review" && !record.reviewed)
      return {
        code: "NOT_COMPLETED",
        message: "The verification awaits review; its PDF can be downloaded once reviewed.",
      };
    return undefined;
  }

  /** The PDF was downloaded: archived 60 minutes after the first download. */
  downloaded(id: string): BiometricRecord {
    const record = this.get(id);
    const refusal = this.pdfRefusal(record);
    if (refusal) throw new TransitionError(refusal.message);
    if (record.pdf_downloaded_at === null) {
      record.pdf_downloaded_at = this.iso();
      this.ctx.after(ARCHIVE_AFTER_DOWNLOAD_MS, TIMERS.archiveAfterDownload, id);
      this.ctx.changed();
    }
    return record;
  }

  /** An unexpected processing error: the verification is dead. */
  fail(id: string, message: string = EVENT_MESSAGES.error): BiometricRecord {
    const record = this.get(id);
    this.expect(record, LIVE, "fail");
    this.toError(record, message);
    return record;
  }

  /** Run one of this lifecycle's timers, due at `dueAt` (virtual ms; the clock may be past it). */
  onTimer(kind: string, id: string, dueAt: number): void {
    const record = this.records.get(id);
    if (!record || !LIVE.includes(record.state)) return;
    switch (kind) {
      case TIMERS.lifespan:
      case TIMERS.archiveAfterDownload:
        return this.archive(record);
      case TIMERS.pendingTimeout:
        if (record.state === "pending")
          this.toError(
            record,
            "Data sources were unavailable for 24 hours; the verification could not be completed.",
          );
        return;
      case TIMERS.pendingRetry:
        if (record.state !== "pending") return;
        if (record.pending_retry === "succeed") {
          this.complete(id, "pass");
          return;
        }
        this.send(
          record,
          "pending",
          null,
          "A data source is still unavailable; the verification will be retried.",
        );
        // On the schedule, not from now: an advanced clock runs every retry of the window in turn.
        this.ctx.at(dueAt + PENDING_RETRY_MS, TIMERS.pendingRetry, id);
        return;
      case TIMERS.journey:
        return this.journeyStep(record);
    }
  }

  private journeyStep(record: BiometricRecord): void {
    if (record.state !== "created") return;
    switch (record.journey) {
      case "pass":
      case "review":
      case "fail":
        this.complete(record.transaction_id, record.journey);
        return;
      case "error":
        this.toError(record, EVENT_MESSAGES.error);
        return;
      case "pending":
        this.pend(record.transaction_id, "succeed");
        return;
      case "pending-error":
        this.pend(record.transaction_id, "fail");
        return;
    }
  }

  private firstStepDelay(journey: Journey): number {
    // Pending journeys go pending halfway, then retry: the whole journey ends within journeyDelayMs × 1.5.
    return journey === "pending" || journey === "pending-error"
      ? this.journeyDelayMs / 2
      : this.journeyDelayMs;
  }

  private toError(record: BiometricRecord, message: string): void {
    this.cancelTimers(record.transaction_id);
    record.state = "error";
    this.send(record, "error", null, message);
  }

  private archive(record: BiometricRecord): void {
    this.cancelTimers(record.transaction_id);
    record.state = "archived";
    this.send(record, "archived");
    // Data erased: what identified the person goes; what identifies the record stays.
    record.firstname = null;
    record.lastname = null;
    record.phone_number = null;
    record.verification = null;
    record.notes = null;
    // Erased means erased: the copies in the deliveries made about it go too.
    this.ctx.eraseDeliveries(record.transaction_id);
    this.ctx.changed();
  }

  /** Cancel every timer of a verification (it was forgotten, or it moved on). */
  forgetTimers(id: string): void {
    this.cancelTimers(id);
  }

  private cancelTimers(id: string): void {
    for (const kind of Object.values(TIMERS)) this.ctx.cancel(kind, id);
  }

  private send(
    record: BiometricRecord,
    event: BiometricEvent,
    verification: Record<string, unknown> | null = null,
    message: string | null = null,
  ): void {
    record.updated_at = this.iso();
    record.events.push({ at: record.updated_at, event });
    if (record.events.length > MAX_EVENTS_KEPT)
      record.events.splice(0, record.events.length - MAX_EVENTS_KEPT);
    this.ctx.emit(record, event, verification, message);
    this.ctx.resized(record);
    this.ctx.changed();
  }

  private get(id: string): BiometricRecord {
    const record = this.records.get(id);
    if (!record) throw new TransitionError("No biometric verification has this transaction_id.");
    return record;
  }

  private expect(record: BiometricRecord, states: readonly BiometricState[], action: string): void {
    if (!states.includes(record.state)) {
      throw new TransitionError(
        `Cannot ${action} a verification in the ${record.state} state (allowed: ${states.join(", ")}).`,
      );
    }
  }

  /** The verification member of completed and updated events about a record, as it is now. */
  result(record: BiometricRecord): Record<string, unknown> {
    return verificationOf(record, this.ctx.baseUrl(), this.ctx.now());
  }

  /**
   * The verification of an updated event: as it is now, with the captures the completed event
   * sent ("updated … media assets do not change"): the same URLs, not signed anew.
   */
  private updatedResult(record: BiometricRecord): Record<string, unknown> {
    const next = this.result(record);
    const sent = record.verification as { capture?: unknown } | null | undefined;
    if (sent?.capture !== undefined) next.capture = sent.capture;
    return next;
  }

  private iso(): string {
    return new Date(this.ctx.now()).toISOString();
  }
}
