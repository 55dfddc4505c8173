// The stateful sandbox: records made from requests, the biometric lifecycle, EDD and workflow cases,
// the virtual clock and the webhook deliveries, behind one object the HTTP layer calls.
import { randomInt } from "node:crypto";
import type { components } from "../generated/sandbox-control-types.js";
import { parseWebhook, type WebhookError } from "../src/webhooks/index.js";
import { AssetFiles } from "./products/files/asset-files.js";
import { BiometricLifecycle, type BiometricRecord, TIMERS } from "./products/biometric/lifecycle.js";
import { ByteBudget, jsonBytes, MAX_KEPT_BYTES, TIMER_BYTES } from "./state/byte-budget.js";
import { type Timer, VirtualClock } from "./clock/clock.js";
import type { Credentials } from "../src/server/credentials.js";
import { type Channel, DeliveryQueue, type Delivery, type Receiver } from "./deliveries/queue.js";
import type { KybRecord, ManualRecord, PepRecord, PropertyRecord } from "./products/records.js";
import type { ListeningOn } from "./http/self-address.js";
import type { Json } from "../src/contract/json.js";

// Bodies and records are JSON the contract's schemas describe.

export interface SandboxOptions {
  credentials: Credentials;
  /** Real milliseconds before each step of a magic journey (2 s by default; the journey ends within 3 s). */
  journeyDelayMs?: number;
  /** Real milliseconds a delivery attempt may take (10 s by default). */
  deliveryTimeoutMs?: number;
  /** The real clock (tests may pass their own). */
  realNow?: () => number;
  /** Told of each delivery made (tests record them). */
  observeDelivery?: (delivery: Delivery, receiver: Receiver) => void;
  /** Told when something worth saving changed. */
  changed?: () => void;
  /** Save now (a reset's answer waits for the --state file to hold the empty state). */
  saveNow?: () => void;
  /** Records kept at most (MAX_RECORDS by default; tests make it small). */
  maxRecords?: number;
  /** Bytes kept at most, everything together (MAX_KEPT_BYTES by default; tests make it small). */
  maxKeptBytes?: number;
  /** Told when a delivery the sandbox built breaks the AsyncAPI contract (a sandbox defect). */
  contractViolation?: (what: string) => void;
}

/** A workflow case, created and completed through the control API: its shape is the control contract's. */
export type WorkflowCase = components["schemas"]["WorkflowCase"];

/** Records kept at most, all products together; the oldest go first. */
export const MAX_RECORDS = 100_000;

/** A kept record: where it lives, the bytes it is counted as, and its place among everything kept. */
interface KeptEntry {
  map: Map<unknown, unknown>;
  key: unknown;
  bytes: number;
  seq: number;
}

/** Timers a verification holds at once at most (lifespan, a journey step or retry, the pending window, the archive). */
const BIOMETRIC_TIMERS = 4;

/** The body of a biometric webhook event about a record, as the service sends it. */
export function biometricBody(
  record: BiometricRecord,
  event: string,
  verification: Record<string, unknown> | null,
  message: string | null,
): Json {
  return {
    event,
    reference: record.reference,
    external_id: record.external_id,
    phone_number: record.phone_number,
    transaction_id: record.transaction_id,
    verification,
    message,
  };
}

/** The case_completed body of an EDD case, as the service sends it. */
export function eddCompletedBody(record: Json): Json {
  return {
    event: "case_completed",
    ...(typeof record.reference === "string" ? { reference: record.reference } : {}),
    external_id: null,
    phone_number: record.primary_contact?.formatted_contact_phone ?? null,
    transaction_id: record.transaction_id,
    verification: null,
    message: null,
  };
}

export class Sandbox {
  readonly clock: VirtualClock;
  readonly queue: DeliveryQueue;
  readonly biometric: BiometricLifecycle;
  readonly manual = new Map<string, ManualRecord>();
  readonly pep = new Map<number, PepRecord>();
  readonly fraud = new Map<number, Json>();
  readonly property = new Map<number, PropertyRecord>();
  readonly kyb = new Map<number, KybRecord>();
  readonly edd = new Map<number, Json>();
  /** The one byte budget of records, deliveries, uploads and their timers. */
  readonly budget: ByteBudget;
  /** The bytes of EDD uploads, for their assets' download_url. */
  readonly assetFiles: AssetFiles;
  readonly workflow = new Map<number, WorkflowCase>();
  /** The last id handed out per kind of record. */
  readonly ids = new Map<string, number>();
  credentials: Credentials;
  /** Every kept record in the order it was made, from `keptHead` on: what to forget first. */
  private readonly kept: KeptEntry[] = [];
  /** The live entry of each kept record, by map and key: a record kept again is counted once. */
  private readonly keptEntries = new Map<Map<unknown, unknown>, Map<unknown, KeptEntry>>();
  private keptHead = 0;
  private keptBytes = 0;
  /** The address the sandbox answers on, for URLs in records (set once listening). */
  baseUrl = "http://127.0.0.1:4010";
  /** The path the docs site of this version is served under (`/docs/`), or null (set once listening). */
  docsPath: string | null = null;
  /** The address and port its server is bound to (set once listening): receivers may not point there. */
  listening: ListeningOn | undefined;

  constructor(private readonly options: SandboxOptions) {
    this.credentials = options.credentials;
    this.clock = new VirtualClock(options.realNow);
    this.budget = new ByteBudget(options.maxKeptBytes ?? MAX_KEPT_BYTES);
    this.budget.register({
      oldestSeq: () => this.kept[this.keptHead]?.seq,
      forgetOldest: () => this.forgetOldestRecord(),
    });
    this.assetFiles = new AssetFiles(undefined, this.budget);
    this.queue = new DeliveryQueue({
      clock: this.clock,
      budget: this.budget,
      ...(options.deliveryTimeoutMs === undefined ? {} : { timeoutMs: options.deliveryTimeoutMs }),
      changed: () => this.changed(),
      ...(options.observeDelivery ? { observe: options.observeDelivery } : {}),
    });
    this.biometric = new BiometricLifecycle(
      {
        now: () => this.clock.now(),
        after: (ms, kind, ref) => void this.clock.after(ms, kind, ref),
        at: (at, kind, ref) => void this.clock.at(at, kind, ref),
        cancel: (kind, ref) => this.clock.cancel(kind, ref),
        emit: (record, event, verification, message) =>
          this.emitBiometric(record, event, verification, message),
        baseUrl: () => this.baseUrl,
        changed: () => this.changed(),
        eraseDeliveries: (id) => this.queue.erase(id),
        resized: (record) => {
          // Counted again as it now is (an event added), if it is kept already.
          if (this.keptEntries.get(this.biometric.records)?.has(record.transaction_id))
            this.keep(this.biometric.records, record.transaction_id, record);
        },
      },
      options.journeyDelayMs ?? 2000,
    );
    this.clock.onTimer((timer) => this.onTimer(timer));
  }

  /** The next integer id of a kind of record: ids start above 1000 and grow, as the contract's examples look. */
  nextId(kind: string): number {
    const next = (this.ids.get(kind) ?? 1000 + randomInt(0, 100)) + 1;
    this.ids.set(kind, next);
    return next;
  }

  /**
   * Keep a record in its map, within the budgets: past MAX_RECORDS records, or past the byte budget
   * of everything kept, the oldest are forgotten (they answer 404 from then on). A record is
   * counted as the bytes of its JSON (what the --state file holds of it) and of the timers it may
   * hold; one kept again (edited, or an upload added) keeps its place and is counted as it now is.
   */
  keep<K, V>(map: Map<K, V>, key: K, value: V): void {
    map.set(key, value);
    const entries = this.keptEntries.get(map) ?? new Map<unknown, KeptEntry>();
    this.keptEntries.set(map, entries);
    const bytes =
      jsonBytes(value) +
      ((map as Map<unknown, unknown>) === this.biometric.records ? BIOMETRIC_TIMERS * TIMER_BYTES : 0);
    const known = entries.get(key);
    if (known) {
      this.budget.charge(bytes - known.bytes);
      known.bytes = bytes;
    } else {
      const entry: KeptEntry = { map: map as Map<unknown, unknown>, key, bytes, seq: this.budget.next() };
      this.kept.push(entry);
      entries.set(key, entry);
      this.budget.charge(bytes);
    }
    const maxRecords = this.options.maxRecords ?? MAX_RECORDS;
    while (this.kept.length - this.keptHead > maxRecords) this.forgetOldestRecord();
    this.budget.enforce();
    // Drop the forgotten entries' slots now and then, not on every record.
    if (this.keptHead > 4096 && this.keptHead * 2 > this.kept.length) {
      this.kept.splice(0, this.keptHead);
      this.keptHead = 0;
    }
  }

  /** Forget one kept record now (made for an event that was then refused); its place is left empty. */
  forgetRecord<K, V>(map: Map<K, V>, key: K): void {
    const entry = this.keptEntries.get(map as Map<unknown, unknown>)?.get(key);
    map.delete(key);
    if ((map as Map<unknown, unknown>) === this.biometric.records) this.biometric.forgetTimers(String(key));
    if (!entry) return;
    this.keptEntries.get(map as Map<unknown, unknown>)?.delete(key);
    this.budget.charge(-entry.bytes);
    // The newest (a record made for a refused event): its place goes too, or it would count
    // against the record limit and push a live record out early. Otherwise it stays in `kept`
    // until its turn to go, and releases nothing more then.
    if (this.kept.length > this.keptHead && this.kept[this.kept.length - 1] === entry) this.kept.pop();
    else entry.bytes = 0;
  }

  /** Forget the oldest kept record, and its timers with it: the clock holds no more than the records do. */
  private forgetOldestRecord(): void {
    const old = this.kept[this.keptHead++];
    if (!old) return;
    old.map.delete(old.key);
    this.keptEntries.get(old.map)?.delete(old.key);
    if (old.map === this.biometric.records) this.biometric.forgetTimers(String(old.key));
    this.budget.charge(-old.bytes);
  }

  /** Bytes the kept records are counted as (their part of the byte budget). */
  get recordBytes(): number {
    let bytes = 0;
    for (let i = this.keptHead; i < this.kept.length; i++) bytes += (this.kept[i] as KeptEntry).bytes;
    return bytes;
  }

  /**
   * Advance the virtual clock; timers that fall due run in order, each at its due time, in slices
   * between other work. Settles when they have all run and every delivery that fell due has had its
   * attempt answered or timed out (retries due by then too); a RangeError at once past the clock's end.
   */
  advance(ms: number): Promise<void> {
    return this.clock
      .advance(ms)
      .then(() => this.queue.settled(this.clock.now()))
      .then(() => this.changed());
  }

  /**
   * Run the timers due, then wait until every delivery due has had its attempt answered or timed
   * out (and recorded): resolves with the virtual time waited up to and how many were waited for.
   */
  async settled(): Promise<{ until: number; deliveries: number }> {
    await this.clock.runDue();
    const until = this.clock.now();
    return { until, deliveries: await this.queue.settled(until) };
  }

  /** Send the case_completed event of an EDD case. */
  emitEddCompleted(record: Json): void {
    this.emit(
      "events",
      "eddCaseCompleted",
      "case_completed",
      record.transaction_id,
      eddCompletedBody(record),
    );
  }

  /** Complete a workflow case: the case.completed delivery when it was created with an external_id. */
  completeWorkflow(record: WorkflowCase, approval: "approved" | "denied"): void {
    record.status = "completed";
    record.service.approval_status = approval;
    if (record.external_id === null) return;
    this.emit(
      "workflow",
      "workflowCase",
      "case.completed",
      String(record.case_id),
      { ...record },
      {
        "X-Workflow-Event-Type": "case.completed",
      },
    );
  }

  /**
   * Forget every record, delivery and timer, and the clock's offset; the receivers too when asked.
   * Done in the clock's turn, after the advances asked for before it, with nothing between; record
   * ids keep counting up, so that an id from before never names a record made after.
   */
  async reset(options: { receivers?: boolean } = {}): Promise<void> {
    let attemptsEnded: Promise<void> = Promise.resolve();
    await this.clock.reset(() => {
      while (this.keptHead < this.kept.length) this.forgetOldestRecord();
      this.kept.length = 0;
      this.keptHead = 0;
      this.keptEntries.clear();
      const maps: Map<unknown, unknown>[] = [
        this.biometric.records,
        this.manual,
        this.pep,
        this.fraud,
        this.property,
        this.kyb,
        this.edd,
        this.workflow,
      ];
      for (const map of maps) map.clear();
      this.assetFiles.clear();
      attemptsEnded = this.queue.reset(options.receivers === true);
    });
    // Whatever was on its way to a receiver has arrived (or timed out) when the reset answers.
    await attemptsEnded;
    this.changed();
    this.options.saveNow?.();
  }

  /** Stop the clock and abort deliveries in flight; settled once the delivery thread has stopped. */
  close(): Promise<void> {
    this.clock.stop();
    return this.queue.close();
  }

  changed(): void {
    this.options.changed?.();
  }

  private emitBiometric(
    record: BiometricRecord,
    event: string,
    verification: Record<string, unknown> | null,
    message: string | null,
  ): void {
    const body = biometricBody(record, event, verification, message);
    this.emit("events", "biometricWebhook", event, record.transaction_id, body);
  }

  /** Check a delivery against the AsyncAPI contract, then queue it for every receiver of its kind. */
  private emit(
    kind: "events" | "workflow",
    channel: Channel,
    event: string,
    subject: string,
    payload: unknown,
    headers: Record<string, string> = {},
  ): void {
    const sent = this.send(kind, channel, event, subject, payload, headers);
    if ("error" in sent) {
      const { error } = sent;
      const issue = error.issues[0];
      this.options.contractViolation?.(
        `${channel} ${event}: ${error.message}${issue ? ` at ${issue.pointer}` : ""}`,
      );
    }
  }

  /**
   * Queue an event for every receiver of its kind once the AsyncAPI contract accepts it as the
   * channel's `event`: the number of receivers, or the contract's refusal (nothing queued).
   */
  send(
    kind: "events" | "workflow",
    channel: Channel,
    event: string,
    subject: string,
    payload: unknown,
    headers: Record<string, string> = {},
  ): { receivers: number } | { error: WebhookError } {
    const body = JSON.stringify(payload);
    // The headers every delivery of the event carries; each workflow delivery gets its own id later.
    const probe = {
      "content-type": "application/json",
      ...Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
      ...(channel === "workflowCase" ? { "x-workflow-webhook-id": "whk_00000000000000000000000000" } : {}),
    };
    const parsed = parseWebhook(body, probe);
    if (parsed.error) return { error: parsed.error };
    if (parsed.event.kind !== channel || parsed.event.event !== event)
      // Its `event` member names another event (or one the contract does not know).
      return {
        error: {
          kind: "schema_violation",
          channel,
          event,
          pointer: "/event",
          message: `The ${channel} "${event}" delivery breaks the contract: payload /event must be "${event}".`,
          issues: [{ in: "payload", pointer: "/event", message: `must be "${event}"` }],
        },
      };
    return { receivers: this.queue.emit(kind, channel, event, subject, body, headers) };
  }

  private onTimer(timer: Timer): void {
    try {
      if (timer.kind === "delivery") this.queue.due(timer.ref);
      else if (Object.values(TIMERS).includes(timer.kind as never))
        this.biometric.onTimer(timer.kind, timer.ref, timer.at);
    } catch (error) {
      // A timer never ends the process; the kind says what failed, never a value.
      this.options.contractViolation?.(`timer ${timer.kind} failed: ${(error as Error)?.name ?? "error"}`);
    }
  }
}
