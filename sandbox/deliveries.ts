// Webhook deliveries as the service makes them: a POST per event and receiver, acknowledged by a 2xx;
// anything else, a redirect or no answer is retried up to 8 times with exponential backoff, the last
// about 5 hours after the first, on the virtual clock. Attempts run off the request path, each with a
// deadline, a few at a time per receiver: a slow or dead receiver never slows the API or the others.
// The POSTs go out from a thread of their own, on connections kept open per receiver.
import { randomBytes, randomUUID } from "node:crypto";
import { ByteBudget, jsonBytes, TIMER_BYTES } from "./byte-budget.js";
import type { VirtualClock } from "./clock.js";
import { MAX_ANSWER_BYTES, type PostInFlight, postOnce } from "./delivery-post.js";
import { DeliverySender } from "./delivery-sender.js";

export { MAX_ANSWER_BYTES };

/** Where deliveries go: `events` (biometric and EDD webhooks) or `workflow` (case.completed, no credentials). */
export type ReceiverKind = "events" | "workflow";

/** Credentials a receiver is configured with (the document allows Basic and Bearer; Digest needs a challenge). */
export type ReceiverAuth =
  { scheme: "bearer"; token: string } | { scheme: "basic"; username: string; password: string };

/** A bearer token: RFC 6750's b64token (RFC 7235's token68), as an Authorization header carries it. */
const TOKEN68 = /^[A-Za-z0-9._~+/-]+=*$/;
/** Control characters, which RFC 7617's user-pass excludes, and lone surrogates, which UTF-8 cannot carry. */
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const NOT_IN_BASIC = /[\u0000-\u001f\u007f]|\p{Cs}/u;

/**
 * Why receiver credentials cannot be sent, as the member and the rule (never the value), or
 * undefined when they can. One check for every way in: the --webhook-auth flag, the control API
 * and the --state file, so that what one accepts the others accept too. A bearer token is a token68
 * (RFC 7235) of at most 4,096 characters; a Basic user name has at most 512 characters and no ":"
 * (RFC 7617), a password at most 4,096; neither is empty or holds a control character or a lone
 * surrogate (the pair is sent as UTF-8, base64-encoded).
 */
export function receiverAuthProblem(auth: unknown): { member: string; why: string } | undefined {
  if (typeof auth !== "object" || auth === null) return { member: "", why: "must be an object" };
  const a = auth as Record<string, unknown>;
  if (a.scheme === "bearer") {
    const token = a.token;
    if (typeof token !== "string" || token.length < 1 || token.length > 4096 || !TOKEN68.test(token))
      return {
        member: "/token",
        why: "must be 1 to 4096 characters of A-Z, a-z, 0-9, -, ., _, ~, + and /, then any = (an RFC 7235 token68)",
      };
    return undefined;
  }
  if (a.scheme === "basic") {
    const { username, password } = a;
    if (typeof username !== "string" || username.length < 1 || username.length > 512)
      return { member: "/username", why: "must be 1 to 512 characters" };
    if (username.includes(":") || NOT_IN_BASIC.test(username))
      return { member: "/username", why: 'must hold no ":", control character or lone surrogate (RFC 7617)' };
    if (typeof password !== "string" || password.length < 1 || password.length > 4096)
      return { member: "/password", why: "must be 1 to 4096 characters" };
    if (NOT_IN_BASIC.test(password))
      return { member: "/password", why: "must hold no control character or lone surrogate (RFC 7617)" };
    return undefined;
  }
  return { member: "/scheme", why: "must be bearer or basic" };
}

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
  /**
   * Set when the verification it is about was archived and the personal data in its body erased:
   * `resendable` when what is left is still an event the service sends, `withheld` when the event
   * was its result (completed, updated), which is gone: not sent again.
   */
  erased?: "resendable" | "withheld";
}

/** What one attempt adds to a delivery's JSON at most (`{"at":…,"status":…,"error":…,"duration_ms":…}`). */
export const ATTEMPT_BYTES = 128;

/** Retries after the first attempt. */
export const MAX_RETRIES = 8;
/** The first retry's delay; each next one doubles: 70 s … 8960 s, the last 4 h 57 min 30 s after the first try. */
export const BACKOFF_BASE_MS = 70_000;
/** Attempts in flight at once per receiver; the rest wait their turn. */
const PER_RECEIVER = 4;
/**
 * Bytes of delivery bodies in flight at once, all receivers together: each is copied to the delivery
 * thread and held there until its answer. A delivery larger than this goes alone.
 */
export const MAX_IN_FLIGHT_BYTES = 16 * 1024 * 1024;
/** Deliveries kept, for sending and inspection; past it the oldest go first, even one still pending. */
const MAX_KEPT = 10_000;
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
  /** The byte budget deliveries share with the rest of the sandbox (one of their own, unbounded, by default). */
  budget?: ByteBudget;
  /** Called with each delivery as it is made (tests record them for the conformance checker). */
  observe?: (delivery: Delivery, receiver: Receiver) => void;
}

/** `prefix_` and 16 random hex digits; randomUUID draws from a cached pool, where randomBytes is a call per id. */
const id = (prefix: string) => `${prefix}_${randomUUID().replaceAll("-", "").slice(0, 16)}`;

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

/**
 * A receiver's deliveries due and waiting for a free attempt, indexed by subject: one attempt per
 * subject at a time, so a subject with one in flight is skipped without scanning its deliveries.
 */
class Waiting {
  /** Waiting deliveries by subject, each in due order (a Set, so that a forgotten one leaves at once). */
  readonly bySubject = new Map<string, Set<Delivery>>();
  /** Subjects with a waiting delivery and no attempt in flight, in the order they became ready. */
  readonly ready = new Set<string>();
  /** Subjects with an attempt in flight. */
  readonly busy = new Set<string>();
  inFlight = 0;
  size = 0;

  add(delivery: Delivery): void {
    const queue = this.bySubject.get(delivery.subject) ?? new Set<Delivery>();
    if (queue.has(delivery)) return;
    queue.add(delivery);
    this.bySubject.set(delivery.subject, queue);
    this.size++;
    if (!this.busy.has(delivery.subject)) this.ready.add(delivery.subject);
  }

  delete(delivery: Delivery): void {
    const queue = this.bySubject.get(delivery.subject);
    if (!queue?.delete(delivery)) return;
    this.size--;
    if (queue.size === 0) {
      this.bySubject.delete(delivery.subject);
      this.ready.delete(delivery.subject);
    }
  }

  /** The delivery take() would give, left in place. */
  peek(): Delivery | undefined {
    const subject = this.ready.values().next().value;
    return subject === undefined ? undefined : this.bySubject.get(subject)?.values().next().value;
  }

  /** The next delivery to attempt (its subject becomes busy), or undefined. */
  take(): Delivery | undefined {
    const subject = this.ready.values().next().value;
    if (subject === undefined) return undefined;
    this.ready.delete(subject);
    const queue = this.bySubject.get(subject);
    const delivery = queue?.values().next().value;
    if (!queue || !delivery) return undefined;
    this.delete(delivery);
    this.busy.add(subject);
    this.inFlight++;
    return delivery;
  }

  /** An attempt about `subject` ended: its next delivery may go. */
  done(subject: string): void {
    this.busy.delete(subject);
    this.inFlight--;
    if (this.bySubject.has(subject)) this.ready.add(subject);
  }
}

export class DeliveryQueue {
  readonly receivers = new Map<string, Receiver>();
  readonly deliveries = new Map<string, Delivery>();
  /**
   * Kept deliveries in the order they were made, from `oldest` on (forgotten ones are skipped): the
   * Map's own first entry is found by walking past the slots of every entry deleted before it, so
   * asking it for its oldest cost a scan per delivery once many had been forgotten.
   */
  private order: (Delivery | undefined)[] = [];
  private oldest = 0;
  /** Each kept delivery's place among everything kept, and the bytes it is counted as. */
  private readonly counted = new Map<Delivery, { seq: number; bytes: number }>();
  private readonly budget: ByteBudget;
  /** Kept deliveries by subject, so that erasing a record's data costs no scan of every delivery. */
  private readonly bySubject = new Map<string, Set<Delivery>>();
  /** Per receiver: deliveries due and waiting, and attempts in flight. */
  private readonly waiting = new Map<string, Waiting>();
  /** POSTs in flight (attempts and Test buttons), so that close() ends them all. */
  private readonly posts = new Set<PostInFlight>();
  /** The delivery thread's side of the attempts' POSTs. */
  private readonly sender = new DeliverySender();
  /** Bytes of the attempts in flight, as the budget counts them (MAX_IN_FLIGHT_BYTES at most, or one delivery's). */
  private inFlightBytes = 0;
  /** Receivers with an attempt held back until bytes in flight are released. */
  private readonly held = new Set<string>();
  private readonly timeoutMs: number;
  private readonly maxKept: number;
  private closed = false;

  constructor(private readonly options: DeliveryOptions) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.maxKept = options.maxKept ?? MAX_KEPT;
    this.budget = options.budget ?? new ByteBudget(Infinity);
    this.budget.register({
      oldestSeq: () => {
        const oldest = this.order[this.oldest];
        return oldest ? this.counted.get(oldest)?.seq : undefined;
      },
      forgetOldest: () => this.forgetOldest(),
    });
  }

  /**
   * Count a delivery against the byte budget as its JSON (`json`: its UTF-8 bytes, when known), the
   * attempts it may still record and its timer: what the state file holds of it at most.
   */
  private count(delivery: Delivery, json = jsonBytes(delivery)): void {
    const bytes = json + (MAX_RETRIES + 1 - delivery.attempts.length) * ATTEMPT_BYTES + TIMER_BYTES;
    const known = this.counted.get(delivery);
    this.budget.charge(bytes - (known?.bytes ?? 0));
    this.counted.set(delivery, { seq: known?.seq ?? this.budget.next(), bytes });
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
    if (removed) {
      this.sender.retire(receiverId);
      this.options.changed?.();
    }
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
    const createdAt = this.iso();
    const now = this.options.clock.now();
    const workflow = channel === "workflowCase";
    /** The JSON bytes of this event's deliveries but for their ids, which alone differ between them. */
    let shared: number | undefined;
    for (const receiver of this.receivers.values()) {
      if (receiver.kind !== kind) continue;
      // A workflow delivery's id is unique per delivery (an idempotency key), kept across its retries.
      const webhook = workflow ? webhookId() : "";
      const delivery: Delivery = {
        id: id("dlv"),
        receiver_id: receiver.id,
        channel,
        event,
        subject,
        created_at: createdAt,
        status: "pending",
        attempts: [],
        next_attempt_at: now,
        headers: {
          "Content-Type": "application/json",
          ...headers,
          ...(workflow ? { "X-Workflow-Webhook-Id": webhook } : {}),
        },
        body,
      };
      // Measured once an event (its body may be megabytes), not once a receiver.
      shared ??= jsonBytes({
        ...delivery,
        id: "",
        receiver_id: "",
        headers: { ...delivery.headers, ...(workflow ? { "X-Workflow-Webhook-Id": "" } : {}) },
      });
      made.push(
        this.add(
          delivery,
          shared + stringBytes(delivery.id) + stringBytes(receiver.id) + stringBytes(webhook),
        ),
      );
    }
    return made;
  }

  /**
   * Erase the personal data (phone number, result) from the bodies of the kept biometric deliveries
   * about `subject`: its verification was archived. One whose event was the result can no longer
   * be sent; if it was still waiting to retry, it stops (failed).
   */
  erase(subject: string): void {
    for (const delivery of this.bySubject.get(subject) ?? []) {
      if (delivery.channel !== "biometricWebhook" || delivery.erased) continue;
      const payload = JSON.parse(delivery.body) as Record<string, unknown>;
      const hadResult = payload.verification !== null && payload.verification !== undefined;
      payload.phone_number = null;
      payload.verification = null;
      delivery.body = JSON.stringify(payload);
      delivery.erased = hadResult ? "withheld" : "resendable";
      this.count(delivery);
      if (hadResult && delivery.status === "pending") {
        this.waiting.get(delivery.receiver_id)?.delete(delivery);
        this.options.clock.cancel("delivery", delivery.id);
        this.finish(delivery, "failed");
      }
    }
    this.options.changed?.();
  }

  /** Whether a delivery can be sent again: its receiver is registered and its event was not erased. */
  replayRefusal(delivery: Delivery): "receiver" | "erased" | undefined {
    if (delivery.erased === "withheld") return "erased";
    return this.receivers.has(delivery.receiver_id) ? undefined : "receiver";
  }

  /** Send a delivery again now, as a new delivery with the same body and headers (as erased, if it was). */
  replay(original: Delivery): Delivery | undefined {
    if (this.replayRefusal(original)) return undefined;
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
    const outcome = await this.post(
      receiver.url,
      { "Content-Type": "application/json", ...authorization(receiver.auth) },
      body,
    );
    const { status } = outcome;
    return { ok: status !== null && status >= 200 && status < 400, ...outcome };
  }

  /** Run a delivery timer that fell due (the clock calls this). */
  due(deliveryId: string): void {
    const delivery = this.deliveries.get(deliveryId);
    if (!delivery || delivery.status !== "pending") return;
    this.queueOf(delivery.receiver_id).add(delivery);
    this.pump(delivery.receiver_id);
  }

  /** Restore saved deliveries and receivers (their timers are restored with the clock). */
  restore(receivers: Receiver[], deliveries: Delivery[]): void {
    for (const r of receivers) this.receivers.set(r.id, r);
    for (const d of deliveries) {
      this.deliveries.set(d.id, d);
      this.order.push(d);
      this.index(d);
      this.count(d);
    }
    this.trim();
    this.budget.enforce();
  }

  /** Abort attempts in flight and stop sending; settled once the delivery thread has stopped. */
  close(): Promise<void> {
    this.closed = true;
    for (const post of this.posts) post.abort();
    return this.sender.close();
  }

  /**
   * One POST, tracked so that close() ends it (and its deadline's timer does not outlive the
   * sandbox): an attempt's from the delivery thread on its receiver's kept connections, the Test
   * button's from here on a connection of its own.
   */
  private async post(url: string, headers: Record<string, string>, body: string, receiverId?: string) {
    const post =
      receiverId === undefined
        ? postOnce(url, headers, body, this.timeoutMs)
        : this.sender.post(url, headers, body, this.timeoutMs, receiverId);
    this.posts.add(post);
    if (this.closed) post.abort();
    try {
      return await post.done;
    } finally {
      this.posts.delete(post);
    }
  }

  private queueOf(receiverId: string): Waiting {
    let queue = this.waiting.get(receiverId);
    if (!queue) {
      queue = new Waiting();
      this.waiting.set(receiverId, queue);
    }
    return queue;
  }

  private index(delivery: Delivery): void {
    const same = this.bySubject.get(delivery.subject);
    if (same) same.add(delivery);
    else this.bySubject.set(delivery.subject, new Set([delivery]));
  }

  private add(delivery: Delivery, json?: number): Delivery {
    this.deliveries.set(delivery.id, delivery);
    this.order.push(delivery);
    this.index(delivery);
    this.count(delivery, json);
    this.options.clock.at(delivery.next_attempt_at ?? this.options.clock.now(), "delivery", delivery.id);
    this.trim();
    this.budget.enforce();
    const receiver = this.receivers.get(delivery.receiver_id);
    if (receiver) this.options.observe?.(delivery, receiver);
    this.options.changed?.();
    return delivery;
  }

  private trim(): void {
    // The oldest first, pending or not: memory stays bounded even when a receiver never answers.
    // A forgotten delivery leaves its receiver's queue and the clock too, or they would grow without bound.
    while (this.deliveries.size > this.maxKept && this.oldest < this.order.length) this.forgetOldest();
    // Drop the forgotten slots now and then, not on every delivery.
    if (this.oldest > 4096 && this.oldest * 2 > this.order.length) {
      this.order = this.order.slice(this.oldest);
      this.oldest = 0;
    }
  }

  /** Forget the oldest kept delivery; its slot is emptied at once, so that its body is not held. */
  private forgetOldest(): void {
    const oldest = this.order[this.oldest];
    this.order[this.oldest++] = undefined;
    if (oldest && this.deliveries.get(oldest.id) === oldest) this.forget(oldest);
  }

  private forget(delivery: Delivery): void {
    this.deliveries.delete(delivery.id);
    this.budget.charge(-(this.counted.get(delivery)?.bytes ?? 0));
    this.counted.delete(delivery);
    const same = this.bySubject.get(delivery.subject);
    same?.delete(delivery);
    if (same?.size === 0) this.bySubject.delete(delivery.subject);
    this.waiting.get(delivery.receiver_id)?.delete(delivery);
    this.options.clock.cancel("delivery", delivery.id);
  }

  private pump(receiverId: string): void {
    const queue = this.waiting.get(receiverId);
    if (!queue) return;
    // Events about one record go one at a time, in order: a receiver sees created before completed.
    while (queue.inFlight < PER_RECEIVER) {
      const next = queue.peek();
      if (!next) break;
      // As the byte budget counts it (its JSON, body included): known already, where measuring the
      // body again would cost a scan of it per receiver.
      const bytes = this.counted.get(next)?.bytes ?? Buffer.byteLength(next.body, "utf8");
      if (this.inFlightBytes > 0 && this.inFlightBytes + bytes > MAX_IN_FLIGHT_BYTES) {
        this.held.add(receiverId);
        break;
      }
      const chosen = queue.take() as Delivery;
      this.inFlightBytes += bytes;
      void this.attempt(chosen)
        // Off the request path, a rejection would be unhandled and end the process: the delivery fails instead.
        .catch(() => this.finish(chosen, "failed"))
        .finally(() => {
          this.inFlightBytes -= bytes;
          queue.done(chosen.subject);
          this.pump(receiverId);
          // Bytes were released: the receivers held back for them may go on.
          for (const held of [...this.held]) {
            this.held.delete(held);
            this.pump(held);
          }
        });
    }
    if (queue.size === 0 && queue.inFlight === 0) this.waiting.delete(receiverId);
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
    const answer = await this.post(
      receiver.url,
      { ...delivery.headers, ...authorization(receiver.auth) },
      delivery.body,
      receiver.id,
    );
    const redirect = answer.status !== null && answer.status >= 300 && answer.status < 400;
    const outcome: Attempt = {
      at,
      ...answer,
      // Credentials never follow a redirect: a 3xx is an unacknowledged delivery.
      ...(redirect ? { error: "redirect" as const } : {}),
      duration_ms: Math.round(performance.now() - started),
    };
    if (this.closed) return;
    delivery.attempts.push(outcome);
    // Stopped while in flight (its data was erased): the outcome is kept, nothing more is sent.
    if (delivery.status !== "pending") return;
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

/** What a string adds to a JSON text where an empty one stood: its escaped UTF-8 bytes, less the quotes. */
const stringBytes = (text: string): number => jsonBytes(text) - 2;

/** The Authorization header of a receiver's credentials. */
function authorization(auth: ReceiverAuth | undefined): Record<string, string> {
  if (!auth) return {};
  if (auth.scheme === "bearer") return { Authorization: `Bearer ${auth.token}` };
  return { Authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString("base64")}` };
}
