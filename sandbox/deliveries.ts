// Webhook deliveries as the service makes them: a POST per event and receiver, acknowledged by a 2xx;
// anything else, a redirect or no answer is retried up to 8 times with exponential backoff, the last
// about 5 hours after the first, on the virtual clock. Attempts run off the request path, each with a
// deadline, a few at a time per receiver: a slow or dead receiver never slows the API or the others.
import { randomBytes } from "node:crypto";
import type { VirtualClock } from "./clock.js";

/** Where deliveries go: `events` (biometric and EDD webhooks) or `workflow` (case.completed, no credentials). */
export type ReceiverKind = "events" | "workflow";

/** Credentials a receiver is configured with (the document allows Basic and Bearer; Digest needs a challenge). */
export type ReceiverAuth =
  { scheme: "bearer"; token: string } | { scheme: "basic"; username: string; password: string };

export interface Receiver {
  id: string;
  url: string;
  kind: ReceiverKind;
  auth?: ReceiverAuth;
  created_at: string;
}

/** One try of a delivery, at the virtual time it was due. `status` is null when no answer came (error says why). */
export interface Attempt {
  at: string;
  status: number | null;
  error?: "timeout" | "connection" | "redirect";
  duration_ms: number;
}

export type Channel = "biometricWebhook" | "eddCaseCompleted" | "workflowCase";

export interface Delivery {
  id: string;
  receiver_id: string;
  channel: Channel;
  event: string;
  /** The biometric transaction, EDD case transaction or workflow case the event is about. */
  subject: string;
  created_at: string;
  status: "pending" | "delivered" | "failed";
  attempts: Attempt[];
  /** Virtual epoch ms of the next attempt, or null when none is due. */
  next_attempt_at: number | null;
  /** Headers other than credentials (those are added from the receiver at each attempt). */
  headers: Record<string, string>;
  body: string;
  replay_of?: string;
}

/** Retries after the first attempt. */
export const MAX_RETRIES = 8;
/** The first retry's delay; each next one doubles: 70 s … 8960 s, the last 4 h 57 min 30 s after the first try. */
export const BACKOFF_BASE_MS = 70_000;
/** Attempts in flight at once per receiver; the rest wait their turn. */
const PER_RECEIVER = 4;
/** Deliveries kept, for sending and inspection; past it the oldest go first, even one still pending. */
const MAX_KEPT = 10_000;
/** Bytes of a receiver's answer read before it is dropped: enough for any acknowledgement. */
export const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * Read and discard an answer's body, at most MAX_ANSWER_BYTES of it. A receiver's answer is not
 * needed, and one that streams without end must cost neither memory nor the attempt's whole deadline.
 */
async function discardAnswer(response: Response): Promise<void> {
  if (!response.body) return;
  const reader = response.body.getReader();
  let read = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.byteLength;
      if (read > MAX_ANSWER_BYTES) return void (await reader.cancel());
    }
  } catch {
    // A reset while reading the answer: the status has already arrived and is what counts.
  }
}

/** The delay before retry `n` (1-based). */
export const backoff = (n: number): number => BACKOFF_BASE_MS * 2 ** (n - 1);

export interface DeliveryOptions {
  clock: VirtualClock;
  /** Real milliseconds an attempt may take before it counts as unanswered. */
  timeoutMs?: number;
  /** Called after any change worth saving. */
  changed?: () => void;
  /** Deliveries kept at most (10,000 by default). */
  maxKept?: number;
  /** Called with each delivery as it is made (tests record them for the conformance checker). */
  observe?: (delivery: Delivery, receiver: Receiver) => void;
}

const id = (prefix: string, bytes = 8) => `${prefix}_${randomBytes(bytes).toString("hex")}`;

/** Crockford base32 of random bytes: the look of the contract's X-Workflow-Webhook-Id example. */
export function webhookId(): string {
  const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  const bytes = randomBytes(26);
  let out = "whk_";
  for (const byte of bytes) out += alphabet[byte & 31];
  return out;
}

/** Receivers the sandbox keeps at most: each event fans out to all of them, so their number bounds one event's work. */
export const MAX_RECEIVERS = 100;

export class DeliveryQueue {
  readonly receivers = new Map<string, Receiver>();
  readonly deliveries = new Map<string, Delivery>();
  /** Deliveries due per receiver, in order; a Set, so that a forgotten one leaves it at once. */
  private readonly waiting = new Map<string, Set<Delivery>>();
  private readonly inFlight = new Map<string, number>();
  /** Receiver and subject pairs with an attempt in flight. */
  private readonly busy = new Set<string>();
  private readonly controllers = new Set<AbortController>();
  private readonly timeoutMs: number;
  private readonly maxKept: number;
  private closed = false;

  constructor(private readonly options: DeliveryOptions) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.maxKept = options.maxKept ?? MAX_KEPT;
  }

  /** Deliveries due and waiting for a free attempt, all receivers together. */
  get waitingCount(): number {
    let n = 0;
    for (const queue of this.waiting.values()) n += queue.size;
    return n;
  }

  /** Register a receiver. */
  addReceiver(url: string, kind: ReceiverKind, auth?: ReceiverAuth): Receiver {
    if (this.receivers.size >= MAX_RECEIVERS)
      throw new RangeError(`at most ${MAX_RECEIVERS} receivers can be registered`);
    const receiver: Receiver = { id: id("rcv"), url, kind, created_at: this.iso() };
    if (auth && kind === "events") receiver.auth = auth;
    this.receivers.set(receiver.id, receiver);
    this.options.changed?.();
    return receiver;
  }

  /** Remove a receiver; its pending deliveries fail at their next attempt. */
  removeReceiver(receiverId: string): boolean {
    const removed = this.receivers.delete(receiverId);
    if (removed) this.options.changed?.();
    return removed;
  }

  /** Make one delivery per receiver of the kind; returns them. */
  emit(
    kind: ReceiverKind,
    channel: Channel,
    event: string,
    subject: string,
    body: string,
    headers: Record<string, string> = {},
  ): Delivery[] {
    const made: Delivery[] = [];
    for (const receiver of this.receivers.values()) {
      if (receiver.kind !== kind) continue;
      // A workflow delivery's id is unique per delivery (an idempotency key), kept across its retries.
      const extra: Record<string, string> =
        channel === "workflowCase" ? { "X-Workflow-Webhook-Id": webhookId() } : {};
      made.push(
        this.add({
          id: id("dlv"),
          receiver_id: receiver.id,
          channel,
          event,
          subject,
          created_at: this.iso(),
          status: "pending",
          attempts: [],
          next_attempt_at: this.options.clock.now(),
          headers: { "Content-Type": "application/json", ...headers, ...extra },
          body,
        }),
      );
    }
    return made;
  }

  /** Send a delivery again now, as a new delivery with the same body and headers. */
  replay(original: Delivery): Delivery | undefined {
    if (!this.receivers.has(original.receiver_id)) return undefined;
    return this.add({
      ...original,
      id: id("dlv"),
      created_at: this.iso(),
      status: "pending",
      attempts: [],
      next_attempt_at: this.options.clock.now(),
      replay_of: original.id,
    });
  }

  /**
   * The dashboard's Test button: one POST of `body` to an events receiver, with its credentials, not
   * retried. 2xx and 3xx succeed, as the document says of the button; a redirect is not followed.
   */
  async test(
    receiver: Receiver,
    body: string,
  ): Promise<{ ok: boolean; status: number | null; error?: "timeout" | "connection" }> {
    const controller = new AbortController();
    // Tracked like an attempt, so that close() ends it and its timer does not outlive the sandbox.
    this.controllers.add(controller);
    if (this.closed) controller.abort();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    try {
      const response = await fetch(receiver.url, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...authorization(receiver.auth) },
        body,
        redirect: "manual",
        signal: controller.signal,
      });
      await discardAnswer(response);
      return { ok: response.status >= 200 && response.status < 400, status: response.status };
    } catch {
      return { ok: false, status: null, error: controller.signal.aborted ? "timeout" : "connection" };
    } finally {
      clearTimeout(timer);
      this.controllers.delete(controller);
    }
  }

  /** Run a delivery timer that fell due (the clock calls this). */
  due(deliveryId: string): void {
    const delivery = this.deliveries.get(deliveryId);
    if (!delivery || delivery.status !== "pending") return;
    const queue = this.waiting.get(delivery.receiver_id) ?? new Set<Delivery>();
    queue.add(delivery);
    this.waiting.set(delivery.receiver_id, queue);
    this.pump(delivery.receiver_id);
  }

  /** Restore saved deliveries and receivers (their timers are restored with the clock). */
  restore(receivers: Receiver[], deliveries: Delivery[]): void {
    for (const r of receivers) this.receivers.set(r.id, r);
    for (const d of deliveries) this.deliveries.set(d.id, d);
    this.trim();
  }

  /** Abort attempts in flight and stop sending. */
  close(): void {
    this.closed = true;
    for (const controller of this.controllers) controller.abort();
  }

  private add(delivery: Delivery): Delivery {
    this.deliveries.set(delivery.id, delivery);
    this.trim();
    this.options.clock.at(delivery.next_attempt_at ?? this.options.clock.now(), "delivery", delivery.id);
    const receiver = this.receivers.get(delivery.receiver_id);
    if (receiver) this.options.observe?.(delivery, receiver);
    this.options.changed?.();
    return delivery;
  }

  private trim(): void {
    // The oldest first, pending or not: memory stays bounded even when a receiver never answers.
    // A forgotten delivery leaves its receiver's queue and the clock too, or they would grow without bound.
    while (this.deliveries.size > this.maxKept) {
      const oldest = this.deliveries.values().next().value;
      if (oldest === undefined) break;
      this.deliveries.delete(oldest.id);
      this.waiting.get(oldest.receiver_id)?.delete(oldest);
      this.options.clock.cancel("delivery", oldest.id);
    }
  }

  private pump(receiverId: string): void {
    const queue = this.waiting.get(receiverId);
    while (queue && queue.size > 0 && (this.inFlight.get(receiverId) ?? 0) < PER_RECEIVER) {
      // Events about one record go one at a time, in order: a receiver sees created before completed.
      let delivery: Delivery | undefined;
      for (const d of queue) {
        if (this.busy.has(`${receiverId}\n${d.subject}`)) continue;
        delivery = d;
        break;
      }
      if (!delivery) break;
      const chosen = delivery;
      queue.delete(chosen);
      const subjectKey = `${receiverId}\n${chosen.subject}`;
      this.busy.add(subjectKey);
      this.inFlight.set(receiverId, (this.inFlight.get(receiverId) ?? 0) + 1);
      void this.attempt(chosen)
        // Off the request path, a rejection would be unhandled and end the process: the delivery fails instead.
        .catch(() => this.finish(chosen, "failed"))
        .finally(() => {
          this.busy.delete(subjectKey);
          this.inFlight.set(receiverId, (this.inFlight.get(receiverId) ?? 1) - 1);
          this.pump(receiverId);
        });
    }
    if (queue && queue.size === 0) this.waiting.delete(receiverId);
  }

  private async attempt(delivery: Delivery): Promise<void> {
    const receiver = this.receivers.get(delivery.receiver_id);
    const scheduled = delivery.next_attempt_at ?? this.options.clock.now();
    if (!receiver || this.closed) {
      if (!receiver) this.finish(delivery, "failed");
      return;
    }
    const started = performance.now();
    // The time it was due: after a jump of the clock, the schedule stays readable.
    const at = new Date(scheduled).toISOString();
    let outcome: Attempt;
    const controller = new AbortController();
    this.controllers.add(controller);
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    try {
      const response = await fetch(receiver.url, {
        method: "POST",
        headers: { ...delivery.headers, ...authorization(receiver.auth) },
        body: delivery.body,
        // Credentials never follow a redirect: a 3xx is an unacknowledged delivery.
        redirect: "manual",
        signal: controller.signal,
      });
      await discardAnswer(response);
      const redirect = response.status >= 300 && response.status < 400;
      outcome = {
        at,
        status: response.status,
        ...(redirect ? { error: "redirect" as const } : {}),
        duration_ms: Math.round(performance.now() - started),
      };
    } catch {
      outcome = {
        at,
        status: null,
        error: controller.signal.aborted ? "timeout" : "connection",
        duration_ms: Math.round(performance.now() - started),
      };
    } finally {
      clearTimeout(timer);
      this.controllers.delete(controller);
    }
    if (this.closed) return;
    delivery.attempts.push(outcome);
    if (outcome.status !== null && outcome.status >= 200 && outcome.status < 300) {
      this.finish(delivery, "delivered");
    } else if (delivery.attempts.length > MAX_RETRIES) {
      this.finish(delivery, "failed");
    } else {
      // On the schedule, not from when the attempt ended: an advanced clock fires the retries in turn.
      delivery.next_attempt_at = scheduled + backoff(delivery.attempts.length);
      this.options.clock.at(delivery.next_attempt_at, "delivery", delivery.id);
      this.options.changed?.();
    }
  }

  private finish(delivery: Delivery, status: "delivered" | "failed"): void {
    delivery.status = status;
    delivery.next_attempt_at = null;
    this.options.changed?.();
  }

  private iso(): string {
    return new Date(this.options.clock.now()).toISOString();
  }
}

/** The Authorization header of a receiver's credentials. */
function authorization(auth: ReceiverAuth | undefined): Record<string, string> {
  if (!auth) return {};
  if (auth.scheme === "bearer") return { Authorization: `Bearer ${auth.token}` };
  return { Authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString("base64")}` };
}
