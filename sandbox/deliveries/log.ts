// The deliveries the sandbox keeps, oldest first, within a count and the byte budget. An event is
// kept once, with the receivers it goes to, and each receiver's delivery of it is made when it is
// first needed (its first attempt, a listing, a save, an erasure): to many receivers, most of an
// event's deliveries are forgotten before they are attempted, and then cost only their count.
import { randomBytes, randomUUID } from "node:crypto";
import { type ByteBudget, jsonBytes, jsonStringBytes, TIMER_BYTES } from "../state/byte-budget.js";
import { MAX_RETRIES } from "./retry.js";
import type { Channel, Delivery } from "./types.js";

/** What one attempt adds to a delivery's JSON at most (`{"at":…,"status":…,"error":…,"duration_ms":…}`). */
export const ATTEMPT_BYTES = 128;

/** `prefix_` and 16 random hex digits; randomUUID draws from a cached pool, where randomBytes is a call per id. */
export const id = (prefix: string) => `${prefix}_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
/** What a delivery's id (`dlv_` and 16 hex digits) adds to its JSON. */
const DELIVERY_ID_BYTES = 20;

/** Crockford base32 of random bytes: the look of the contract's X-Workflow-Webhook-Id example. */
export function webhookId(): string {
  const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  const bytes = randomBytes(26);
  let out = "whk_";
  for (const byte of bytes) out += alphabet[byte & 31];
  return out;
}
/** What a webhook id (`whk_` and 26 characters) adds to a delivery's JSON. */
const WEBHOOK_ID_BYTES = 30;

/** What a string adds to a JSON text where an empty one stood: its escaped UTF-8 bytes, less the quotes. */
const stringBytes = (text: string): number => jsonStringBytes(text) - 2;

/** jsonBytes(delivery), its body (a JSON text, kilobytes of `"`) measured apart rather than escaped. */
const deliveryBytes = (delivery: Delivery): number =>
  typeof delivery.body === "string"
    ? jsonBytes({ ...delivery, body: "" }) + stringBytes(delivery.body)
    : jsonBytes(delivery);

/** The receivers of one kind as they stood when an event was emitted: each one's slot in it. */
export class Fanout {
  readonly slots = new Map<string, number>();
  /** What each receiver's id adds to a delivery's JSON, by slot. */
  readonly idBytes: number[];

  constructor(readonly ids: readonly string[]) {
    this.idBytes = ids.map(stringBytes);
    ids.forEach((receiverId, slot) => this.slots.set(receiverId, slot));
  }
}

/** An event as emitted: `at` is when its first attempts are due, in virtual epoch ms. */
export interface EventToSend {
  channel: Channel;
  event: string;
  subject: string;
  created_at: string;
  at: number;
  headers: Record<string, string>;
  body: string;
}

/** An emitted event: what its deliveries not yet made are made from. */
interface Emitted {
  fanout: Fanout;
  channel: Channel;
  event: string;
  created_at: string;
  at: number;
  /** Shared by its deliveries, but for a workflow delivery's own webhook id. */
  headers: Record<string, string>;
  body: string;
  erased?: "resendable" | "withheld";
  /** The bytes of a delivery of it not yet made, but for its receiver's id. */
  bytes: number;
}

/** One entry of the log: an emitted event's deliveries, or a single delivery (a replay, a restored one). */
interface Entry {
  seq: number;
  /** Its place in the log, counting the entries cut off before it. */
  pos: number;
  subject: string;
  /** Deliveries made, by receiver slot (one slot for a single delivery). */
  made: (Delivery | undefined)[];
  /** Its deliveries, made or not. */
  slots: number;
  /** Its deliveries in the slots before this one are forgotten. */
  first: number;
  emitted?: Emitted;
}

/** An emitted entry's delivery with these ids, as it is made now (a result erased before it was sent is never sent). */
function deliveryOf(
  entry: Entry,
  deliveryId: string,
  receiverId: string,
  webhook: string | undefined,
): Delivery {
  const emitted = entry.emitted as Emitted;
  const withheld = emitted.erased === "withheld";
  return {
    id: deliveryId,
    receiver_id: receiverId,
    channel: emitted.channel,
    event: emitted.event,
    subject: entry.subject,
    created_at: emitted.created_at,
    status: withheld ? "failed" : "pending",
    attempts: [],
    next_attempt_at: withheld ? null : emitted.at,
    headers:
      webhook === undefined ? emitted.headers : { ...emitted.headers, "X-Workflow-Webhook-Id": webhook },
    body: emitted.body,
    ...(emitted.erased ? { erased: emitted.erased } : {}),
  };
}

/** What the state file holds of a delivery at most besides its JSON: its attempts still to come and its timer. */
const reserve = (attempts: number) => (MAX_RETRIES + 1 - attempts) * ATTEMPT_BYTES + TIMER_BYTES;

export interface DeliveryLogOptions {
  budget: ByteBudget;
  maxKept: number;
  /** Called with each delivery as it is made. */
  made: (delivery: Delivery) => void;
  /** Called with each made delivery as it is forgotten. */
  forgotten: (delivery: Delivery) => void;
}

export class DeliveryLog {
  /** Entries in the order they were made, from `oldest` on; `dropped` earlier entries were cut off. */
  private entries: (Entry | undefined)[] = [];
  private oldest = 0;
  private dropped = 0;
  /** Deliveries kept, made or not. */
  private kept = 0;
  /** Made deliveries by id: only a made delivery has an id anyone can name. */
  private readonly byId = new Map<string, Delivery>();
  /** Each made delivery's entry and the bytes it is counted as. */
  private readonly counted = new Map<Delivery, { entry: Entry; bytes: number }>();
  /** Kept entries by subject, so that erasing a record's data costs no scan of every entry. */
  private readonly bySubject = new Map<string, Set<Entry>>();
  /** Per receiver: the position (counting entries cut off) of the next entry it has not looked at. */
  private readonly cursors = new Map<string, number>();

  constructor(private readonly options: DeliveryLogOptions) {
    options.budget.register({
      oldestSeq: () => this.entries[this.oldest]?.seq,
      forgetOldest: () => this.forgetOldest(),
    });
  }

  /** Deliveries kept, made or not. */
  get size(): number {
    return this.kept;
  }

  /** A made delivery by id. */
  get(deliveryId: string): Delivery | undefined {
    return this.byId.get(deliveryId);
  }

  /** Every kept delivery, oldest first, each made if it was not. */
  list(): Delivery[] {
    const all: Delivery[] = [];
    for (let i = this.oldest; i < this.entries.length; i++) {
      const entry = this.entries[i];
      if (entry) for (let slot = entry.first; slot < entry.slots; slot++) all.push(this.make(entry, slot));
    }
    return all;
  }

  /** Keep an event for every receiver of `fanout`: counted now, each delivery made when first needed. */
  emit(fanout: Fanout, event: EventToSend): void {
    const { subject, ...rest } = event;
    const emitted: Emitted = { fanout, ...rest, bytes: 0 };
    const entry: Entry = {
      seq: this.options.budget.next(),
      pos: this.dropped + this.entries.length,
      subject,
      made: [],
      slots: fanout.ids.length,
      first: 0,
      emitted,
    };
    emitted.bytes = this.unmadeBytes(entry);
    let bytes = 0;
    for (const idBytes of fanout.idBytes) bytes += emitted.bytes + idBytes;
    this.options.budget.charge(bytes);
    this.push(entry, fanout.ids.length);
  }

  /** Keep a single delivery, made already (a replay, or one restored from the state file). */
  add(delivery: Delivery): void {
    const entry: Entry = {
      seq: this.options.budget.next(),
      pos: this.dropped + this.entries.length,
      subject: delivery.subject,
      made: [delivery],
      slots: 1,
      first: 0,
    };
    this.byId.set(delivery.id, delivery);
    this.counted.set(delivery, { entry, bytes: 0 });
    this.recount(delivery);
    this.push(entry, 1);
  }

  /** Count a made delivery again as it now is (its JSON, the attempts it may still record, its timer). */
  recount(delivery: Delivery): void {
    const known = this.counted.get(delivery);
    if (!known) return;
    const bytes = deliveryBytes(delivery) + reserve(delivery.attempts.length);
    this.options.budget.charge(bytes - known.bytes);
    known.bytes = bytes;
  }

  /** The bytes a made delivery is counted as. */
  bytes(delivery: Delivery): number {
    return this.counted.get(delivery)?.bytes ?? Buffer.byteLength(delivery.body, "utf8");
  }

  /** Start looking at entries for `receiverId` from the next one emitted on. */
  follow(receiverId: string): void {
    this.cursors.set(receiverId, this.dropped + this.entries.length);
  }

  /** Stop looking for `receiverId`; returns its emitted deliveries it had not looked at yet, made. */
  unfollow(receiverId: string): Delivery[] {
    const left: Delivery[] = [];
    for (let next = this.pull(receiverId); next; next = this.pull(receiverId)) left.push(next);
    this.cursors.delete(receiverId);
    return left;
  }

  /**
   * The next pending delivery emitted to `receiverId` that it has not looked at, made; with
   * `before`, only from the entries kept before that delivery's. Undefined when none is left.
   */
  pull(receiverId: string, before?: Delivery): Delivery | undefined {
    let at = Math.max(this.cursors.get(receiverId) ?? Infinity, this.dropped + this.oldest);
    // A `before` no longer kept has no place to stop at: nothing comes before it.
    const limit = before === undefined ? Infinity : (this.counted.get(before)?.entry.pos ?? -Infinity);
    const end = Math.min(limit, this.dropped + this.entries.length);
    try {
      while (at < end) {
        const entry = this.entries[at++ - this.dropped];
        const slot = entry?.emitted?.fanout.slots.get(receiverId);
        if (entry === undefined || slot === undefined || slot < entry.first) continue;
        const delivery = this.make(entry, slot);
        if (delivery.status === "pending") return delivery;
      }
      return undefined;
    } finally {
      if (this.cursors.has(receiverId)) this.cursors.set(receiverId, at);
    }
  }

  /**
   * Erase a subject's event bodies with `erase` (called once per body), making its deliveries;
   * returns them with their new bodies, each with whether its event was the result.
   */
  erase(
    subject: string,
    channel: Channel,
    erase: (body: string) => { body: string; withheld: boolean },
  ): { delivery: Delivery; withheld: boolean }[] {
    const erased: { delivery: Delivery; withheld: boolean }[] = [];
    for (const entry of this.bySubject.get(subject) ?? []) {
      const emitted = entry.emitted;
      if (emitted) {
        if (emitted.channel !== channel || emitted.erased) continue;
        const { body, withheld } = erase(emitted.body);
        // Deliveries made from now on are made erased; those made already are erased in turn below.
        const before = emitted.bytes;
        Object.assign(emitted, { body, erased: withheld ? "withheld" : "resendable" });
        // Measured again only when a delivery of it is still to be made: once all are, nothing reads it.
        if (entry.made.length < entry.slots || entry.made.includes(undefined, entry.first))
          emitted.bytes = this.unmadeBytes(entry);
        for (let slot = entry.first; slot < entry.slots; slot++) {
          const made = entry.made[slot];
          if (!made) {
            this.options.budget.charge(emitted.bytes - before);
            continue;
          }
          made.body = body;
          erased.push({ delivery: made, withheld });
        }
      } else {
        const delivery = entry.made[0];
        if (!delivery || delivery.channel !== channel || delivery.erased) continue;
        const result = erase(delivery.body);
        delivery.body = result.body;
        erased.push({ delivery, withheld: result.withheld });
      }
    }
    for (const { delivery, withheld } of erased) {
      delivery.erased = withheld ? "withheld" : "resendable";
      this.recount(delivery);
    }
    return erased;
  }

  /** Forget every kept delivery; each receiver looks at entries from the next one emitted on. */
  clear(): void {
    while (this.oldest < this.entries.length) this.forgetOldest();
    this.dropped += this.entries.length;
    this.entries = [];
    this.oldest = 0;
    for (const receiverId of this.cursors.keys()) this.cursors.set(receiverId, this.dropped);
  }

  /** Forget deliveries, oldest first, until at most maxKept are kept. */
  trim(): void {
    while (this.kept > this.options.maxKept && this.oldest < this.entries.length) this.forgetOldest();
    // Cut the forgotten entries off now and then, not on every one.
    if (this.oldest > 4096 && this.oldest * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.oldest);
      this.dropped += this.oldest;
      this.oldest = 0;
    }
  }

  private push(entry: Entry, slots: number): void {
    this.entries.push(entry);
    this.kept += slots;
    const same = this.bySubject.get(entry.subject);
    if (same) same.add(entry);
    else this.bySubject.set(entry.subject, new Set([entry]));
  }

  /** The delivery in an entry's slot, made (and counted as its made self) if it was not. */
  private make(entry: Entry, slot: number): Delivery {
    const made = entry.made[slot];
    if (made) return made;
    const emitted = entry.emitted as Emitted;
    // A workflow delivery's id is unique per delivery (an idempotency key), kept across its retries.
    const webhook = emitted.channel === "workflowCase" ? webhookId() : undefined;
    const delivery = deliveryOf(entry, id("dlv"), emitted.fanout.ids[slot] as string, webhook);
    entry.made[slot] = delivery;
    this.byId.set(delivery.id, delivery);
    // Counted already, when it was emitted.
    this.counted.set(delivery, { entry, bytes: emitted.bytes + (emitted.fanout.idBytes[slot] as number) });
    this.options.made(delivery);
    return delivery;
  }

  /**
   * The bytes of an emitted entry's delivery not yet made, but for its receiver id: its JSON as it
   * would be made now, measured once for the whole entry (its body may be megabytes), not once a receiver.
   */
  private unmadeBytes(entry: Entry): number {
    const workflow = entry.emitted?.channel === "workflowCase";
    const template = deliveryOf(entry, "", "", workflow ? "" : undefined);
    return deliveryBytes(template) + DELIVERY_ID_BYTES + (workflow ? WEBHOOK_ID_BYTES : 0) + reserve(0);
  }

  /** Forget the oldest kept delivery; a made one's slot is emptied at once, so that its body is not held. */
  private forgetOldest(): void {
    const entry = this.entries[this.oldest];
    if (!entry) {
      this.oldest++;
      return;
    }
    const slot = entry.first++;
    const made = entry.made[slot];
    entry.made[slot] = undefined;
    this.kept--;
    if (made) {
      this.byId.delete(made.id);
      this.options.budget.charge(-(this.counted.get(made)?.bytes ?? 0));
      this.counted.delete(made);
      this.options.forgotten(made);
    } else {
      const emitted = entry.emitted as Emitted;
      this.options.budget.charge(-(emitted.bytes + (emitted.fanout.idBytes[slot] as number)));
    }
    if (entry.first < entry.slots) return;
    this.entries[this.oldest++] = undefined;
    const same = this.bySubject.get(entry.subject);
    same?.delete(entry);
    if (same?.size === 0) this.bySubject.delete(entry.subject);
  }
}
