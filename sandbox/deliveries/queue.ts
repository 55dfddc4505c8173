// Webhook deliveries as the service makes them: a POST per event and receiver, acknowledged by a 2xx;
// anything else, a redirect or no answer is retried up to 8 times with exponential backoff, the last
// about 5 hours after the first, on the virtual clock. Attempts run off the request path, each with a
// deadline, a few at a time per receiver: a slow or dead receiver never slows the API or the others.
// The POSTs go out from a thread of their own, on connections kept open per receiver. An event is
// kept once for all its receivers, and each receiver's delivery made when first needed
// (log.ts): emitting costs about the same to one receiver as to a hundred. The retry schedule is
// retry.ts's; the receivers' rules receivers.ts's.
import { ByteBudget } from "../state/byte-budget.js";
import { erasedBiometricBody, replayOf } from "./copies.js";
import type { VirtualClock } from "../clock/clock.js";
import { ATTEMPT_BYTES, DeliveryLog, Fanout, id, webhookId } from "./log.js";
import { MAX_ANSWER_BYTES } from "./post.js";
import { Posts } from "./posts.js";
import { authorization, MAX_RECEIVERS } from "./receivers.js";
import { backoff, retriesLeft } from "./retry.js";
import { DeliverySender } from "./sender.js";
import { type SettleResult, settleMaxMs, SettleWaits } from "./settle.js";
import type { Attempt, Channel, Delivery, Receiver, ReceiverAuth, ReceiverKind } from "./types.js";
import { Waiting } from "./waiting.js";

export { ATTEMPT_BYTES, MAX_ANSWER_BYTES, webhookId };
export { BACKOFF_BASE_MS, backoff, MAX_RETRIES } from "./retry.js";
export { MAX_RECEIVERS, receiverAuthProblem } from "./receivers.js";
export type { Attempt, Channel, Delivery, Receiver, ReceiverAuth, ReceiverKind } from "./types.js";
export type { SettleResult } from "./settle.js";

/** Attempts in flight at once per receiver; the rest wait their turn. */
export const PER_RECEIVER = 4;
/**
 * Bytes of delivery bodies in flight at once, all receivers together: each is copied to the delivery
 * thread and held there until its answer. A delivery larger than this goes alone.
 */
export const MAX_IN_FLIGHT_BYTES = 16 * 1024 * 1024;
/** Deliveries kept, for sending and inspection; past it the oldest go first, even one still pending. */
const MAX_KEPT = 10_000;

export interface DeliveryOptions {
  clock: VirtualClock;
  /** Real milliseconds an attempt may take before it counts as unanswered. */
  timeoutMs?: number;
  /** Real milliseconds a wait for deliveries lasts at most (three attempt deadlines, at least 30 s, by default). */
  settleMaxMs?: number;
  /** Called after any change worth saving. */
  changed?: () => void;
  /** Deliveries kept at most (10,000 by default). */
  maxKept?: number;
  /** The byte budget deliveries share with the rest of the sandbox (one of their own, unbounded, by default). */
  budget?: ByteBudget;
  /** Called with each delivery as it is made (tests record them for the conformance checker). */
  observe?: (delivery: Delivery, receiver: Receiver) => void;
}

export class DeliveryQueue {
  readonly receivers = new Map<string, Receiver>();
  /** Every kept delivery, each receiver's made when first needed. */
  private readonly log: DeliveryLog;
  /** The receivers of each kind as they stand: the slots of the next event emitted to it. */
  private readonly fanouts = new Map<ReceiverKind, Fanout>();
  /** Per receiver: deliveries due and waiting for a free attempt, and attempts in flight. */
  private readonly waiting = new Map<string, Waiting>();
  /** Deliveries with an attempt in flight. */
  private readonly attempting = new Set<Delivery>();
  /** Callers waiting for the deliveries due to settle (settled()). */
  private readonly waits: SettleWaits;
  /** The delivery thread's side of the attempts' POSTs. */
  private readonly sender = new DeliverySender();
  /** POSTs in flight (attempts and Test buttons), so that close() ends them all. */
  private readonly posts: Posts;
  /** Bytes of the attempts in flight, as the budget counts them (MAX_IN_FLIGHT_BYTES at most, or one delivery's). */
  private inFlightBytes = 0;
  /** Receivers with an attempt held back until bytes in flight are released. */
  private readonly held = new Set<string>();
  private readonly budget: ByteBudget;
  private closed = false;
  /** The attempts in flight, each settled once it has ended and been recorded. */
  private readonly runs = new Set<Promise<void>>();
  /** Counts resets: an attempt begun before the latest one records nothing. */
  private generation = 0;

  constructor(private readonly options: DeliveryOptions) {
    const timeoutMs = options.timeoutMs ?? 10_000;
    this.posts = new Posts(this.sender, timeoutMs);
    this.waits = new SettleWaits(
      (delivery, until) => this.settledBy(delivery, until),
      { maxMs: options.settleMaxMs ?? settleMaxMs(timeoutMs) },
      (delivery) => this.log.get(delivery.id) === delivery,
    );
    this.budget = options.budget ?? new ByteBudget(Infinity);
    this.log = new DeliveryLog({
      budget: this.budget,
      maxKept: options.maxKept ?? MAX_KEPT,
      made: (delivery) => {
        const receiver = this.receivers.get(delivery.receiver_id);
        if (receiver) this.options.observe?.(delivery, receiver);
      },
      // A forgotten delivery leaves its receiver's queue and the clock too, or they would grow without bound.
      forgotten: (delivery) => {
        this.waiting.get(delivery.receiver_id)?.delete(delivery);
        this.options.clock.cancel("delivery", delivery.id);
        this.waits.gone(delivery);
      },
    });
  }

  /** Deliveries kept, made or not. */
  get size(): number {
    return this.log.size;
  }

  /** A delivery by id. */
  get(deliveryId: string): Delivery | undefined {
    return this.log.get(deliveryId);
  }

  /** Every kept delivery, oldest first. */
  list(): Delivery[] {
    return this.log.list();
  }

  /** Deliveries due, made and waiting for a free attempt, all receivers together. */
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
    this.log.follow(receiver.id);
    this.refanout(kind);
    this.options.changed?.();
    return receiver;
  }

  /**
   * Remove a receiver: its deliveries not in flight fail at once; an attempt in flight records its
   * answer, and nothing is sent to it again (a retry due fails unsent).
   */
  removeReceiver(receiverId: string): boolean {
    const removed = this.receivers.get(receiverId);
    if (!removed) return false;
    // Made while it is still registered, so that each is observed with its receiver as any other.
    const untried = this.log.unfollow(receiverId);
    this.receivers.delete(receiverId);
    this.refanout(removed.kind);
    const waiting = this.waiting.get(receiverId);
    for (const delivery of waiting?.clear() ?? []) untried.push(delivery);
    for (const delivery of untried) {
      this.options.clock.cancel("delivery", delivery.id);
      this.finish(delivery, "failed");
    }
    this.sender.retire(receiverId);
    this.options.changed?.();
    return true;
  }

  /** Keep one delivery per receiver of the kind, each attempted at once (made when first needed); how many. */
  emit(
    kind: ReceiverKind,
    channel: Channel,
    event: string,
    subject: string,
    body: string,
    headers: Record<string, string> = {},
  ): number {
    const fanout = this.fanouts.get(kind);
    if (!fanout) return 0;
    this.log.emit(fanout, {
      channel,
      event,
      subject,
      created_at: this.iso(),
      at: this.options.clock.now(),
      headers: { "Content-Type": "application/json", ...headers },
      body,
    });
    this.log.trim();
    this.budget.enforce();
    for (const receiverId of fanout.ids) this.pump(receiverId);
    this.options.changed?.();
    return fanout.ids.length;
  }

  /**
   * Forget every delivery (and the receivers, when asked). An attempt in flight goes on, as the
   * POST is on its way, but its answer is not recorded and it is not retried: it belongs to the
   * state before the reset. Whoever waits for deliveries to settle stops waiting for the old ones.
   * Resolves once those attempts have ended (each has its deadline): from then on, no request
   * made before the reset reaches a receiver.
   */
  reset(receivers: boolean): Promise<void> {
    const ending = Promise.allSettled(this.runs).then(() => undefined);
    this.generation++;
    // Each delivery forgotten releases the waits holding it (the log's `forgotten`), those in flight too.
    this.log.clear();
    this.attempting.clear();
    this.waiting.clear();
    this.held.clear();
    if (receivers) for (const receiverId of [...this.receivers.keys()]) this.removeReceiver(receiverId);
    this.options.changed?.();
    return ending;
  }

  /**
   * Erase the personal data (phone number, result) from the bodies of the kept biometric deliveries
   * about `subject`: its verification was archived. One whose event was the result can no longer
   * be sent: not yet attempted, or waiting to retry, it stops (failed); one in flight records its
   * answer as it comes, and is not retried (attempt()). The erasure removes data, not history.
   */
  erase(subject: string): void {
    const erased = this.log.erase(subject, "biometricWebhook", erasedBiometricBody);
    for (const { delivery, withheld } of erased) {
      if (!withheld || delivery.status !== "pending" || this.attempting.has(delivery)) continue;
      this.waiting.get(delivery.receiver_id)?.delete(delivery);
      this.options.clock.cancel("delivery", delivery.id);
      this.finish(delivery, "failed");
    }
    // An erased body may count more than it did ("erased" is added): still within the budget.
    this.budget.enforce();
    this.options.changed?.();
  }

  /**
   * Resolves once every delivery due now (emitted, waiting for a free attempt, or in flight) has had
   * its attempt answered or timed out, and recorded; a retry of one that falls due by `until`
   * (virtual epoch ms) is waited for too. Deliveries emitted later are not. Bounded in real time
   * (settle.ts): a receiver whose attempt times out is waited for no more, and no wait lasts more
   * than three deadlines (at least 30 s); what is still pending then is its `unsettled`, and goes on.
   */
  settled(until: number): Promise<SettleResult> {
    // Closed: no attempt will end any more.
    if (this.closed) return Promise.resolve({ waited: 0, unsettled: [] });
    // An attempt in flight of a delivery forgotten since is nobody's to wait for.
    const due = new Set([...this.attempting].filter((d) => this.log.get(d.id) === d));
    for (const receiverId of this.receivers.keys()) {
      // Its deliveries emitted and not yet taken are due: made and queued now, as pump() would.
      const queue = this.queueOf(receiverId);
      for (let next = this.log.pull(receiverId); next; next = this.log.pull(receiverId)) queue.add(next);
      for (const delivery of queue.all()) due.add(delivery);
      this.pump(receiverId);
    }
    return this.waits.wait(due, until);
  }

  /** Whether a delivery needs no more waiting for up to `until`: see settled(). */
  private settledBy(delivery: Delivery, until: number): boolean {
    if (delivery.status !== "pending") return true;
    if (this.attempting.has(delivery) || this.waiting.get(delivery.receiver_id)?.has(delivery)) return false;
    // Its next attempt is later, or nothing will make one (no timer holds it).
    return (delivery.next_attempt_at ?? Infinity) > until || !this.options.clock.has("delivery", delivery.id);
  }

  /** Whether a delivery can be sent again: its receiver is registered and its event was not erased. */
  replayRefusal(delivery: Delivery): "receiver" | "erased" | undefined {
    if (delivery.erased === "withheld") return "erased";
    return this.receivers.has(delivery.receiver_id) ? undefined : "receiver";
  }

  /**
   * Send a delivery again now, as a new delivery with the same body and headers (as erased, if it
   * was): queued at once, as an emitted event's deliveries are, so that an event emitted after it
   * about the same record goes after it.
   */
  replay(original: Delivery): Delivery | undefined {
    if (this.replayRefusal(original)) return undefined;
    const replay = replayOf(original, this.iso(), this.options.clock.now());
    this.log.add(replay);
    this.log.trim();
    this.budget.enforce();
    const receiver = this.receivers.get(replay.receiver_id);
    if (receiver) this.options.observe?.(replay, receiver);
    // Forgotten already when the budget holds nothing of its size: nothing to send.
    if (this.log.get(replay.id) === replay) this.enqueue(replay);
    this.options.changed?.();
    return replay;
  }

  /** The dashboard's Test button: one POST of `body` to an events receiver (posts.ts). */
  test(receiver: Receiver, body: string): ReturnType<Posts["test"]> {
    return this.posts.test(receiver, body);
  }

  /** Run a delivery timer that fell due (the clock calls this). */
  due(deliveryId: string): void {
    const delivery = this.log.get(deliveryId);
    if (delivery?.status === "pending") this.enqueue(delivery);
  }

  /** Queue a made delivery for its next attempt, behind those emitted to its receiver before it. */
  private enqueue(delivery: Delivery): void {
    const queue = this.queueOf(delivery.receiver_id);
    // Deliveries emitted before it to its receiver and not yet tried were due first: they queue first.
    const earlier = () => this.log.pull(delivery.receiver_id, delivery);
    for (let before = earlier(); before; before = earlier()) queue.add(before);
    queue.add(delivery);
    this.pump(delivery.receiver_id);
  }

  /** Restore saved deliveries and receivers (their timers are restored with the clock). */
  restore(receivers: Receiver[], deliveries: Delivery[]): void {
    for (const r of receivers) {
      this.receivers.set(r.id, r);
      this.log.follow(r.id);
    }
    this.refanout("events");
    this.refanout("workflow");
    for (const d of deliveries) this.log.add(d);
    this.log.trim();
    this.budget.enforce();
  }

  /** Abort attempts in flight and stop sending; settled once the delivery thread has stopped. */
  close(): Promise<void> {
    this.closed = true;
    this.posts.close();
    // No attempt ends from now on: whoever waits for one stops waiting.
    this.waits.releaseAll();
    return this.sender.close();
  }

  /** The receivers of a kind, in the order registered, as the next event of that kind goes to them. */
  private refanout(kind: ReceiverKind): void {
    const ids = [...this.receivers.values()].filter((r) => r.kind === kind).map((r) => r.id);
    if (ids.length > 0) this.fanouts.set(kind, new Fanout(ids));
    else this.fanouts.delete(kind);
  }

  private queueOf(receiverId: string): Waiting {
    let queue = this.waiting.get(receiverId);
    if (!queue) {
      queue = new Waiting();
      this.waiting.set(receiverId, queue);
    }
    return queue;
  }

  private pump(receiverId: string): void {
    const queue = this.queueOf(receiverId);
    // Events about one record go one at a time, in order: a receiver sees created before completed.
    while (queue.inFlight < PER_RECEIVER) {
      let next = queue.peek();
      // Its deliveries not yet tried are made and queued as attempts can take them, in the order emitted.
      while (!next) {
        const pulled = this.log.pull(receiverId);
        if (!pulled) break;
        queue.add(pulled);
        next = queue.peek();
      }
      if (!next) break;
      // As the byte budget counts it (its JSON, body included): known already, where measuring the
      // body again would cost a scan of it per receiver.
      const bytes = this.log.bytes(next);
      if (this.inFlightBytes > 0 && this.inFlightBytes + bytes > MAX_IN_FLIGHT_BYTES) {
        this.held.add(receiverId);
        break;
      }
      const chosen = queue.take() as Delivery;
      this.inFlightBytes += bytes;
      this.attempting.add(chosen);
      const generation = this.generation;
      const run: Promise<void> = this.attempt(chosen)
        // Off the request path, a rejection would be unhandled and end the process: the delivery fails instead.
        .catch(() => {
          if (generation === this.generation) this.finish(chosen, "failed");
        })
        .finally(() => {
          this.inFlightBytes -= bytes;
          this.attempting.delete(chosen);
          queue.done(chosen.subject);
          this.pump(receiverId);
          this.waits.changed(chosen);
          this.runs.delete(run);
          // Bytes were released: the receivers held back for them may go on.
          for (const held of [...this.held]) {
            this.held.delete(held);
            this.pump(held);
          }
        });
      this.runs.add(run);
    }
    if (queue.size === 0 && queue.inFlight === 0) this.waiting.delete(receiverId);
  }

  private async attempt(delivery: Delivery): Promise<void> {
    const receiver = this.receivers.get(delivery.receiver_id);
    const scheduled = delivery.next_attempt_at ?? this.options.clock.now();
    const generation = this.generation;
    if (!receiver || this.closed) {
      if (!receiver) this.finish(delivery, "failed");
      return;
    }
    const started = performance.now();
    // The time it was due: after a jump of the clock, the schedule stays readable.
    const at = new Date(scheduled).toISOString();
    const answer = await this.posts.post(
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
    // Closed, reset or forgotten meanwhile: the delivery is no longer the sandbox's to record or retry.
    if (this.closed || generation !== this.generation || this.log.get(delivery.id) !== delivery) return;
    // The answer as it came, whatever happened to the record meanwhile (an erasure removes data, not history).
    delivery.attempts.push(outcome);
    // A receiver that hangs holds the waits for it one deadline: they let go of its deliveries.
    if (outcome.error === "timeout") this.waits.timedOut(delivery);
    if (delivery.status !== "pending") return;
    if (outcome.status !== null && outcome.status >= 200 && outcome.status < 300) {
      this.finish(delivery, "delivered");
    } else if (!retriesLeft(delivery.attempts.length) || delivery.erased === "withheld") {
      // Out of retries, or its event was the result, erased while this attempt was in flight: not sent again.
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
    this.waits.changed(delivery);
    this.options.changed?.();
  }

  private iso(): string {
    return new Date(this.options.clock.now()).toISOString();
  }
}
