// One budget of bytes for everything the proxy holds of its exchanges (the bodies kept to check and
// record them, their joined and decoded copies, a body read to be signed), with backpressure: an
// exchange that cannot take more waits, its stream paused, until bytes are given back (as Envoy's
// buffer limits pause reading). Waiting must never deadlock: every exchange may come to hold up to
// `perHolderBytes`, so the oldest exchange under way may always take up to that, and all the others
// together never hold more than `totalBytes - perHolderBytes` (the banker's rule: the oldest can
// always finish, then the next oldest is the oldest). An exchange is never dropped or cut for want
// of bytes: it waits.

/** A grant waited for. */
interface Waiter {
  holder: BudgetHolder;
  n: number;
  resolve: (granted: boolean) => void;
}

/** Told when an exchange begins to wait for bytes (a test's deterministic signal). */
export type OnWait = (waiting: number) => void;

/** The proxy's budget of bytes, shared by every exchange in flight. */
export class ByteBudget {
  private used = 0;
  private high = 0;
  private opened = 0;
  /** Holders in the order they were opened: the first is the oldest. */
  private readonly holders = new Set<BudgetHolder>();
  private waiters: Waiter[] = [];

  /**
   * @param totalBytes never more than this is counted at once
   * @param perHolderBytes the most one exchange may hold (at most `totalBytes`)
   */
  constructor(
    readonly totalBytes: number,
    readonly perHolderBytes: number,
    private readonly onWait?: OnWait,
  ) {
    if (!(perHolderBytes > 0 && totalBytes >= perHolderBytes))
      throw new RangeError("proxy: the memory budget must hold at least one exchange's bodies");
  }

  /** The bytes counted now. */
  get usedBytes(): number {
    return this.used;
  }

  /** The most ever counted at once. */
  get highWaterBytes(): number {
    return this.high;
  }

  /** Grants waited for now. */
  get waitingCount(): number {
    return this.waiters.length;
  }

  /** A holder for one exchange; it is the youngest until those opened before it close. */
  open(): BudgetHolder {
    const holder = new BudgetHolder(this, this.opened++);
    this.holders.add(holder);
    return holder;
  }

  /** Whether `holder` may count `n` more bytes now. */
  private allowed(holder: BudgetHolder, n: number): boolean {
    if (this.used + n > this.totalBytes) return false;
    const oldest = this.holders.values().next().value;
    if (holder === oldest) return true;
    return this.used - (oldest?.held ?? 0) + n <= this.totalBytes - this.perHolderBytes;
  }

  /** Count `n` bytes for `holder` if allowed now. */
  tryGrant(holder: BudgetHolder, n: number): boolean {
    if (!this.holders.has(holder) || holder.held + n > this.perHolderBytes) return false;
    if (!this.allowed(holder, n)) return false;
    this.count(holder, n);
    return true;
  }

  /** Count `n` bytes for `holder` once allowed; false when it never can be (closed, or over its share). */
  grant(holder: BudgetHolder, n: number): Promise<boolean> {
    if (this.tryGrant(holder, n)) return Promise.resolve(true);
    if (!this.holders.has(holder) || holder.held + n > this.perHolderBytes) return Promise.resolve(false);
    return new Promise((resolve) => {
      this.waiters.push({ holder, n, resolve });
      this.onWait?.(this.waiters.length);
    });
  }

  /** Give back `n` bytes of `holder`'s, then grant what now can be. */
  give(holder: BudgetHolder, n: number): void {
    const back = Math.min(n, holder.held);
    holder.held -= back;
    this.used -= back;
    this.pump();
  }

  /** Forget `holder`: its bytes given back, its waits answered false. */
  close(holder: BudgetHolder): void {
    if (!this.holders.delete(holder)) return;
    this.used -= holder.held;
    holder.held = 0;
    const theirs = this.waiters.filter((w) => w.holder === holder);
    this.waiters = this.waiters.filter((w) => w.holder !== holder);
    for (const w of theirs) w.resolve(false);
    holder.closedNow();
    this.pump();
  }

  private count(holder: BudgetHolder, n: number): void {
    holder.held += n;
    this.used += n;
    if (this.used > this.high) this.high = this.used;
  }

  /** Grant the waits that now can be, the oldest holders' first. */
  private pump(): void {
    if (this.waiters.length === 0) return;
    const sorted = [...this.waiters].sort((a, b) => a.holder.seq - b.holder.seq);
    const granted = new Set<Waiter>();
    for (const w of sorted) {
      if (!this.allowed(w.holder, w.n)) continue;
      this.count(w.holder, w.n);
      granted.add(w);
    }
    if (granted.size === 0) return;
    this.waiters = this.waiters.filter((w) => !granted.has(w));
    for (const w of granted) w.resolve(true);
  }
}

/** What one exchange holds of the budget. */
export class BudgetHolder {
  /** The bytes counted for this exchange now. */
  held = 0;
  /** Uses not yet ended: the holder closes when the last ends. */
  private uses = 1;
  /** Settles once the holder is closed: the exchange is done, checked and recorded. */
  readonly closed: Promise<void>;
  private settle = (): void => undefined;

  /**
   * @param seq the order it was opened in (the oldest waits are granted first)
   */
  constructor(
    private readonly budget: ByteBudget,
    readonly seq: number,
  ) {
    this.closed = new Promise((resolve) => (this.settle = resolve));
  }

  /** Called by the budget once it has forgotten this holder. */
  closedNow(): void {
    this.settle();
  }

  /** Count `n` bytes now if the budget allows it. */
  tryTake(n: number): boolean {
    return this.budget.tryGrant(this, n);
  }

  /** Count `n` bytes, waiting until the budget allows it; false when it never will (closed, or over its share). */
  take(n: number): Promise<boolean> {
    return this.budget.grant(this, n);
  }

  /** Give back `n` of the bytes counted. */
  release(n: number): void {
    if (n > 0) this.budget.give(this, n);
  }

  /** One more use of the holder (the exchange's check, which outlives its answer). */
  use(): void {
    this.uses++;
  }

  /** End one use; the last gives back every byte and answers any wait false. */
  endUse(): void {
    if (--this.uses <= 0) this.budget.close(this);
  }
}
