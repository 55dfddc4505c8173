// The one store of the sandbox's records, every product's in its own slice, within the record limit
// and the byte budget: past either, the oldest records are forgotten first (they answer 404 from
// then on). Its maps are its own: callers read them as read-only views and change a record through
// put(), which counts it again and tells the saver, so no caller has to remember either.
import { type ByteBudget, jsonBytes } from "./byte-budget.js";

/** A kind of record the store keeps: its slice's name (its member of the --state file too). */
export interface RecordKind<K, V> {
  readonly name: string;
  /** Bytes of the timers a record may hold, counted with it (the clock holds them for it). */
  readonly timerBytes?: number;
  /** jsonBytes(record), when the kind has a cheaper way to the same number; jsonBytes when absent. */
  readonly bytesOf?: (record: V) => number;
  /** Only a type's witness: never read. */
  readonly record?: (key: K) => V;
}

/** A product's slice as the --state file holds it: how each is saved and what a restorable one looks like. */
export interface ProductSlice<K, V> extends RecordKind<K, V> {
  /** Its records alone, each holding its own key (`keyOf`), or `[key, record]` pairs. */
  readonly saved: { form: "values"; keyOf: (record: V) => K } | { form: "entries" };
  /** Whether a saved item (a record, or a pair's record) has what the restore and the handlers rely on. */
  readonly restorable: (record: unknown) => boolean;
}

/** A kept record: its slice and key, the bytes it is counted as, and its place among everything kept. */
interface KeptEntry {
  kind: string;
  key: unknown;
  bytes: number;
  seq: number;
}

export interface RecordStoreOptions {
  budget: ByteBudget;
  /** Records kept at most, every slice together. */
  maxRecords: number;
  /** Told after every change worth saving. */
  changed: () => void;
  /** Told of each record forgotten (its timers go with it). */
  forgotten?: (kind: string, key: unknown) => void;
}

export class RecordStore {
  private readonly slices = new Map<string, Map<unknown, unknown>>();
  /** Every kept record in the order it was made, from `head` on: what to forget first. */
  private readonly kept: KeptEntry[] = [];
  /** The live entry of each kept record, by slice and key: a record kept again is counted once. */
  private readonly entries = new Map<string, Map<unknown, KeptEntry>>();
  private head = 0;

  constructor(private readonly options: RecordStoreOptions) {
    options.budget.register({
      oldestSeq: () => this.kept[this.head]?.seq,
      forgetOldest: () => this.forgetOldest(),
    });
  }

  /** The records of a kind, as a read-only view (it follows the store). */
  records<K, V>(kind: RecordKind<K, V>): ReadonlyMap<K, V> {
    return this.slice(kind) as Map<K, V>;
  }

  /** A record by key, or undefined (never kept, or forgotten). */
  get<K, V>(kind: RecordKind<K, V>, key: K): V | undefined {
    return this.slices.get(kind.name)?.get(key) as V | undefined;
  }

  /**
   * Keep a record (new, or kept again after a change) and tell the saver. A record is counted as
   * the bytes of its JSON (what the --state file holds of it) and of the timers it may hold; one
   * kept again keeps its place and is counted as it now is.
   */
  put<K, V>(kind: RecordKind<K, V>, key: K, value: V): void {
    this.keep(kind, key, value);
    this.options.changed();
  }

  /** Count a record again as it now is, if it is kept (it changed in place); tells the saver. */
  resized<K, V>(kind: RecordKind<K, V>, key: K): void {
    const value = this.get(kind, key);
    if (value !== undefined && this.entries.get(kind.name)?.has(key)) this.put(kind, key, value);
  }

  /** A product's records as the --state file holds them: alone, or as [key, record] pairs. */
  saved<K, V>(product: ProductSlice<K, V>): V[] | [K, V][] {
    const records = this.records(product);
    return product.saved.form === "values" ? [...records.values()] : [...records];
  }

  /** Keep a product's records from the --state file, in the order saved: the oldest are still forgotten first. */
  restore<K, V>(product: ProductSlice<K, V>, saved: readonly unknown[]): void {
    const form = product.saved;
    for (const item of saved) {
      const [key, value] = form.form === "values" ? [form.keyOf(item as V), item as V] : (item as [K, V]);
      this.keep(product, key, value);
    }
  }

  /** Forget one record now (made for an event that was then refused); its place is left empty. */
  forget<K, V>(kind: RecordKind<K, V>, key: K): void {
    const entry = this.entries.get(kind.name)?.get(key);
    this.slices.get(kind.name)?.delete(key);
    this.options.forgotten?.(kind.name, key);
    if (entry) {
      this.entries.get(kind.name)?.delete(key);
      this.options.budget.charge(-entry.bytes);
      // The newest (a record made for a refused event): its place goes too, or it would count
      // against the record limit and push a live record out early. Otherwise it stays in `kept`
      // until its turn to go, and releases nothing more then.
      if (this.kept.length > this.head && this.kept[this.kept.length - 1] === entry) this.kept.pop();
      else entry.bytes = 0;
    }
    this.options.changed();
  }

  /** Forget every record, oldest first (their timers with them). */
  clear(): void {
    while (this.head < this.kept.length) this.forgetOldest();
    this.kept.length = 0;
    this.head = 0;
    this.entries.clear();
    for (const slice of this.slices.values()) slice.clear();
  }

  /** Bytes the kept records are counted as (their part of the byte budget). */
  get bytes(): number {
    let bytes = 0;
    for (let i = this.head; i < this.kept.length; i++) bytes += (this.kept[i] as KeptEntry).bytes;
    return bytes;
  }

  private slice<K, V>(kind: RecordKind<K, V>): Map<unknown, unknown> {
    let slice = this.slices.get(kind.name);
    if (!slice) {
      slice = new Map();
      this.slices.set(kind.name, slice);
    }
    return slice;
  }

  private keep<K, V>(kind: RecordKind<K, V>, key: K, value: V): void {
    this.slice(kind).set(key, value);
    const entries = this.entries.get(kind.name) ?? new Map<unknown, KeptEntry>();
    this.entries.set(kind.name, entries);
    const bytes = (kind.bytesOf ? kind.bytesOf(value) : jsonBytes(value)) + (kind.timerBytes ?? 0);
    const known = entries.get(key);
    if (known) {
      this.options.budget.charge(bytes - known.bytes);
      known.bytes = bytes;
    } else {
      const entry: KeptEntry = { kind: kind.name, key, bytes, seq: this.options.budget.next() };
      this.kept.push(entry);
      entries.set(key, entry);
      this.options.budget.charge(bytes);
    }
    while (this.kept.length - this.head > this.options.maxRecords) this.forgetOldest();
    this.options.budget.enforce();
    // Drop the forgotten entries' slots now and then, not on every record.
    if (this.head > 4096 && this.head * 2 > this.kept.length) {
      this.kept.splice(0, this.head);
      this.head = 0;
    }
  }

  /** Forget the oldest kept record, and its timers with it: the clock holds no more than the records do. */
  private forgetOldest(): void {
    const old = this.kept[this.head++];
    if (!old) return;
    this.slices.get(old.kind)?.delete(old.key);
    this.entries.get(old.kind)?.delete(old.key);
    this.options.forgotten?.(old.kind, old.key);
    this.budget.charge(-old.bytes);
  }

  private get budget(): ByteBudget {
    return this.options.budget;
  }
}
