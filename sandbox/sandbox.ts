// The stateful sandbox: records made from requests, the biometric lifecycle, EDD and workflow cases,
// the virtual clock and the webhook deliveries, behind one object the HTTP layer calls.
import { randomInt } from "node:crypto";
import type { components } from "../generated/sandbox-control-types.js";
import { parseWebhook } from "../src/webhooks/index.js";
import { AssetFiles } from "./asset-files.js";
import { BiometricLifecycle, type BiometricRecord, TIMERS } from "./biometric.js";
import { type Timer, VirtualClock } from "./clock.js";
import type { Credentials } from "./credentials.js";
import { type Channel, DeliveryQueue, type Delivery, type Receiver } from "./deliveries.js";
import type { KybRecord, ManualRecord, PepRecord, PropertyRecord } from "./products.js";

// Bodies and records are JSON the contract's schemas describe.
type Json = any;

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
  /** Records kept at most (MAX_RECORDS by default; tests make it small). */
  maxRecords?: number;
  /** Told when a delivery the sandbox built breaks the AsyncAPI contract (a sandbox defect). */
  contractViolation?: (what: string) => void;
}

/** A workflow case, created and completed through the control API: its shape is the control contract's. */
export type WorkflowCase = components["schemas"]["WorkflowCase"];

/** Records kept at most, all products together; the oldest go first. */
export const MAX_RECORDS = 100_000;

/** A kept record: where it lives and the bytes it is counted as. */
interface KeptEntry {
  map: Map<unknown, unknown>;
  key: unknown;
  bytes: number;
}
/** Request bytes the kept records may hold, all together; the oldest go first. */
export const MAX_RECORD_BYTES = 64 * 1024 * 1024;

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
  /** The bytes of EDD uploads, for their assets' download_url. */
  readonly assetFiles = new AssetFiles();
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

  constructor(private readonly options: SandboxOptions) {
    this.credentials = options.credentials;
    this.clock = new VirtualClock(options.realNow);
    this.queue = new DeliveryQueue({
      clock: this.clock,
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
   * Keep a record in its map, within the budget: past MAX_RECORDS records or MAX_RECORD_BYTES of
   * request bytes, the oldest records are forgotten (they answer 404 from then on). A record kept
   * again (an edit) keeps its place in that order and is counted as `bytes` from then on.
   */
  keep<K, V>(map: Map<K, V>, key: K, value: V, bytes: number): void {
    map.set(key, value);
    const entries = this.keptEntries.get(map) ?? new Map<unknown, KeptEntry>();
    this.keptEntries.set(map, entries);
    const known = entries.get(key);
    if (known) {
      this.keptBytes += bytes - known.bytes;
      known.bytes = bytes;
    } else {
      const entry: KeptEntry = { map: map as Map<unknown, unknown>, key, bytes };
      this.kept.push(entry);
      entries.set(key, entry);
      this.keptBytes += bytes;
    }
    const maxRecords = this.options.maxRecords ?? MAX_RECORDS;
    while (this.kept.length - this.keptHead > maxRecords || this.keptBytes > MAX_RECORD_BYTES) {
      const old = this.kept[this.keptHead++];
      if (!old) break;
      old.map.delete(old.key);
      this.keptEntries.get(old.map)?.delete(old.key);
      // A forgotten verification's timers go with it: the clock holds no more than the records do.
      if (old.map === this.biometric.records) this.biometric.forgetTimers(String(old.key));
      this.keptBytes -= old.bytes;
    }
    // Drop the forgotten entries' slots now and then, not on every record.
    if (this.keptHead > 4096 && this.keptHead * 2 > this.kept.length) {
      this.kept.splice(0, this.keptHead);
      this.keptHead = 0;
    }
  }

  /** Bytes the kept records are counted as, against MAX_RECORD_BYTES. */
  get recordBytes(): number {
    return this.keptBytes;
  }

  /**
   * Advance the virtual clock; timers that fall due run in order, each at its due time, in slices
   * between other work. Settles when they have all run; a RangeError at once past the clock's end.
   */
  advance(ms: number): Promise<void> {
    return this.clock.advance(ms).then(() => this.changed());
  }

  /** Send the case_completed event of an EDD case. */
  emitEddCompleted(record: Json): void {
    const body: Json = {
      event: "case_completed",
      ...(typeof record.reference === "string" ? { reference: record.reference } : {}),
      external_id: null,
      phone_number: record.primary_contact?.formatted_contact_phone ?? null,
      transaction_id: record.transaction_id,
      verification: null,
      message: null,
    };
    this.emit("events", "eddCaseCompleted", "case_completed", record.transaction_id, body);
  }

  /** Complete a workflow case: the case.completed delivery when it was created with an external_id. */
  completeWorkflow(record: WorkflowCase, approval: "approved" | "denied"): void {
    record.status = "completed";
    record.service.approval_status = approval;
    if (record.external_id === null) return;
    const body = { ...record, external_id: record.external_id };
    this.emit("workflow", "workflowCase", "case.completed", String(record.case_id), body, {
      "X-Workflow-Event-Type": "case.completed",
    });
  }

  /** Stop the clock and abort deliveries in flight. */
  close(): void {
    this.clock.stop();
    this.queue.close();
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
    const body = {
      event,
      reference: record.reference,
      external_id: record.external_id,
      phone_number: record.phone_number,
      transaction_id: record.transaction_id,
      verification,
      message,
    };
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
    const body = JSON.stringify(payload);
    // The headers every delivery of the event carries; each workflow delivery gets its own id later.
    const probe = {
      "content-type": "application/json",
      ...Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
      ...(channel === "workflowCase" ? { "x-workflow-webhook-id": "whk_00000000000000000000000000" } : {}),
    };
    const parsed = parseWebhook(body, probe);
    if (parsed.error || parsed.event.kind !== channel) {
      const issue = parsed.error?.issues[0];
      this.options.contractViolation?.(
        `${channel} ${event}: ${parsed.error?.message ?? "not recognised"}${issue ? ` at ${issue.pointer}` : ""}`,
      );
      return;
    }
    this.queue.emit(kind, channel, event, subject, body, headers);
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
