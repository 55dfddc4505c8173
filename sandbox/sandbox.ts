// The stateful sandbox: records made from requests, the biometric lifecycle, EDD and workflow cases,
// the virtual clock and the webhook deliveries, behind one object the HTTP layer calls. Its rooms:
// products/ (each product's records and handlers), state/ (the record store, the --state file),
// deliveries/ (the queue, the log, the sender), clock/, control/ (the control API), http/.
import { randomInt } from "node:crypto";
import { parseWebhook, type WebhookError } from "../src/webhooks/index.js";
import { checkWebhookPayload } from "../src/webhooks/parse-webhook.js";
import type { Json } from "../src/contract/json.js";
import type { Credentials } from "../src/server/credentials.js";
import { type Timer, VirtualClock } from "./clock/clock.js";
import { DeliveryQueue, type SettleResult } from "./deliveries/queue.js";
import {
  type Channel,
  type Delivery,
  type EventOf,
  kindOf,
  type PayloadOf,
  type Receiver,
} from "./deliveries/types.js";
import { type ListeningOn, pointsAtSandbox } from "./http/self-address.js";
import { BIOMETRIC, biometricBody } from "./products/biometric/biometric.js";
import { BiometricLifecycle, TIMERS } from "./products/biometric/lifecycle.js";
import type { ServiceSandbox } from "./products/context.js";
import { eddCompletedBody } from "./products/edd.js";
import { FRAUD } from "./products/fraud.js";
import { AssetFiles } from "./products/files/asset-files.js";
import { ByteBudget, MAX_KEPT_BYTES } from "./state/byte-budget.js";
import type { StateData } from "./state/data.js";
import { timersToSave } from "./state/saved-timers.js";
import { RecordStore } from "./state/store.js";
import { PRODUCTS } from "./products/index.js";

export type { WorkflowCase } from "./products/workflow.js";
export { biometricBody } from "./products/biometric/biometric.js";
export { eddCompletedBody } from "./products/edd.js";

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

/** Records kept at most, all products together; the oldest go first. */
export const MAX_RECORDS = 100_000;

export class Sandbox implements ServiceSandbox {
  readonly clock: VirtualClock;
  readonly queue: DeliveryQueue;
  readonly biometric: BiometricLifecycle;
  /** The one store of every product's records (products/index.ts lists the products). */
  readonly records: RecordStore;
  /** The one byte budget of records, deliveries, uploads and their timers. */
  readonly budget: ByteBudget;
  /** The bytes of EDD uploads, for their assets' download_url. */
  readonly assetFiles: AssetFiles;
  /** The last id handed out per kind of record. */
  readonly ids = new Map<string, number>();
  credentials: Credentials;
  /** The address the sandbox answers on, for URLs in records (set once listening). */
  baseUrl = "http://127.0.0.1:4010";
  /** The path the docs site of this version is served under (`/docs/`), or null (set once listening). */
  docsPath: string | null = null;
  /** The address and port its server is bound to (set once listening): receivers may not point there. */
  listening: ListeningOn | undefined;
  /** The last advance or reset asked for, settled once it has answered (each waits for the one before). */
  private turn: Promise<void> = Promise.resolve();
  /** Advances and resets asked for and not yet answered. */
  private turns = 0;

  constructor(private readonly options: SandboxOptions) {
    this.credentials = options.credentials;
    this.clock = new VirtualClock(options.realNow);
    this.budget = new ByteBudget(options.maxKeptBytes ?? MAX_KEPT_BYTES);
    this.records = new RecordStore({
      budget: this.budget,
      maxRecords: options.maxRecords ?? MAX_RECORDS,
      changed: () => this.changed(),
      // A record forgotten takes its timers with it: the clock holds no more than the records do.
      forgotten: (kind, key) => {
        if (kind === BIOMETRIC.name) this.biometric.forgetTimers(String(key));
      },
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
          this.emit(
            "biometricWebhook",
            event,
            record.transaction_id,
            biometricBody(record, event, verification, message),
          ),
        baseUrl: () => this.baseUrl,
        changed: () => this.changed(),
        eraseDeliveries: (id) => this.queue.erase(id),
        records: () => this.records.records(BIOMETRIC),
        keep: (record) => this.records.put(BIOMETRIC, record.transaction_id, record),
        // Counted again as it now is (an event added), if it is kept already.
        resized: (record) => this.records.resized(BIOMETRIC, record.transaction_id),
      },
      options.journeyDelayMs ?? 2000,
    );
    this.clock.onTimer((timer) => this.onTimer(timer));
  }

  /** The fraud analytics kept (a read-only view of their slice of the record store). */
  get fraud(): ReadonlyMap<number, Json> {
    return this.records.records(FRAUD);
  }

  /** The next integer id of a kind of record: ids start above 1000 and grow, as the contract's examples look. */
  nextId(kind: string): number {
    const next = (this.ids.get(kind) ?? 1000 + randomInt(0, 100)) + 1;
    this.ids.set(kind, next);
    return next;
  }

  /** The virtual time, in epoch milliseconds. */
  now(): number {
    return this.clock.now();
  }

  /** The virtual time as the control API reads it, and how far ahead of real time it is. */
  clockReading(): { now: string; offset_ms: number } {
    return { now: new Date(this.clock.now()).toISOString(), offset_ms: this.clock.offsetMs };
  }

  /** The registered receivers, in the order registered. */
  receivers(): Receiver[] {
    return [...this.queue.receivers.values()];
  }

  /** Whether a URL names this sandbox's own address and port (deliveries there would loop). */
  pointsAtItself(url: string): boolean {
    return pointsAtSandbox(url, this.listening);
  }

  /** Everything the sandbox holds, as the --state file's data (JSON-ready). */
  toState(): StateData {
    const deliveries = this.queue.list();
    // Each product's records under its name, between the ids and the receivers, in PRODUCTS' order.
    const products = Object.fromEntries(PRODUCTS.map((p) => [p.name, this.records.saved(p)]));
    return {
      clock_offset_ms: this.clock.offsetMs,
      timers: timersToSave(this.clock, deliveries),
      ids: [...this.ids],
      ...products,
      receivers: this.receivers(),
      deliveries,
    };
  }

  /** Put state saved by toState() back (into a fresh sandbox; its shape checked by state/shape.ts). */
  restore(data: StateData): void {
    for (const [k, v] of data.ids) this.ids.set(k, v);
    // The clock first: a record or delivery the budgets forget below takes its timers with it.
    this.clock.restore(data.clock_offset_ms, data.timers);
    for (const product of PRODUCTS) this.records.restore(product, data[product.name] as unknown[]);
    this.queue.restore(data.receivers, data.deliveries);
    // An attempt in flight when the sandbox stopped left its delivery pending without a timer: try again.
    const timed = new Set(data.timers.filter((t) => t.kind === "delivery").map((t) => t.ref));
    for (const d of this.queue.list()) {
      if (d.status === "pending" && !timed.has(d.id)) this.clock.at(d.next_attempt_at ?? 0, "delivery", d.id);
    }
  }

  /** Bytes the kept records are counted as (their part of the byte budget). */
  get recordBytes(): number {
    return this.records.bytes;
  }

  /**
   * Advance the virtual clock; timers that fall due run in order, each at its due time, in slices
   * between other work. Settles when they have all run and every delivery that fell due has had its
   * attempt answered or timed out (retries due by then too), within the queue's bound in real time:
   * what is still pending then is its `unsettled`. Advances and resets run in the order asked, each
   * once the one before has answered. A RangeError at once past the clock's end.
   */
  advance(ms: number): Promise<SettleResult> {
    const start = this.clock.reserve(ms);
    return this.inTurn(async () => {
      await start();
      const result = await this.queue.settled(this.clock.now());
      this.changed();
      return result;
    });
  }

  /**
   * Run the timers due, then wait until every delivery due has had its attempt answered or timed
   * out (and recorded), within the queue's bound in real time: resolves with the virtual time waited
   * up to, how many were waited for, and those still pending when it answered.
   */
  async settled(): Promise<{ until: number; deliveries: number; unsettled: Delivery[] }> {
    await this.clock.runDue();
    const until = this.clock.now();
    const { waited, unsettled } = await this.queue.settled(until);
    return { until, deliveries: waited, unsettled };
  }

  /** Send the case_completed event of an EDD case. */
  emitEddCompleted(record: Json): void {
    this.emit("eddCaseCompleted", "case_completed", record.transaction_id, eddCompletedBody(record));
  }

  /**
   * Forget every record, delivery and timer, and the clock's offset; the receivers too when asked.
   * Done once the advances asked for before it have answered (their deliveries waited for as any
   * advance's), in the clock's turn with nothing between; record ids keep counting up, so that an id
   * from before never names a record made after.
   */
  reset(options: { receivers?: boolean } = {}): Promise<void> {
    return this.inTurn(async () => {
      let attemptsEnded: Promise<void> = Promise.resolve();
      await this.clock.reset(() => {
        this.records.clear();
        this.assetFiles.clear();
        attemptsEnded = this.queue.reset(options.receivers === true);
      });
      // Whatever was on its way to a receiver has arrived (or timed out) when the reset answers.
      await attemptsEnded;
      this.changed();
      this.options.saveNow?.();
    });
  }

  /** Run `work` once the advances and resets asked for before it have answered. */
  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    // None in progress: it starts now, as an advance or reset of an idle clock always has.
    const run = this.turns === 0 ? work() : this.turn.then(work);
    this.turns++;
    this.turn = run.then(
      () => void this.turns--,
      () => void this.turns--,
    );
    return run;
  }

  /** Stop the clock and abort deliveries in flight; settled once the delivery thread has stopped. */
  close(): Promise<void> {
    this.clock.stop();
    return this.queue.close();
  }

  changed(): void {
    this.options.changed?.();
  }

  /** Check an event against the AsyncAPI contract, then queue it for every receiver of its channel. */
  emit<C extends Channel, E extends EventOf<C>>(
    channel: C,
    event: E,
    subject: string,
    payload: PayloadOf<C, E>,
    headers: Record<string, string> = {},
  ): void {
    const sent = this.queueEvent(channel, event, subject, payload, headers, true);
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
    channel: Channel,
    event: string,
    subject: string,
    payload: unknown,
    headers: Record<string, string> = {},
  ): { receivers: number } | { error: WebhookError } {
    return this.queueEvent(channel, event, subject, payload, headers, false);
  }

  /**
   * send(); `built`: the payload is the sandbox's own, made of JSON values (records, request
   * bodies), so it is checked as it is rather than parsed back from the JSON just written. A
   * payload with a user's overrides (a trigger) is checked as its JSON text reads.
   */
  private queueEvent(
    channel: Channel,
    event: string,
    subject: string,
    payload: unknown,
    headers: Record<string, string>,
    built: boolean,
  ): { receivers: number } | { error: WebhookError } {
    const body = JSON.stringify(payload);
    // The headers every delivery of the event carries; each workflow delivery gets its own id later.
    const probe = {
      "content-type": "application/json",
      ...Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
      ...(channel === "workflowCase" ? { "x-workflow-webhook-id": "whk_00000000000000000000000000" } : {}),
    };
    const parsed = built ? checkWebhookPayload(payload, probe) : parseWebhook(body, probe);
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
    return { receivers: this.queue.emit(kindOf(channel), channel, event, subject, body, headers) };
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
