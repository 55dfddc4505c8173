// What the traffic reached of the contract, as it is checked: locations (JSON pointers into the
// contract) by kind. Only the contract's own locations are kept, never a recorded value.

/** The kinds of location a coverage report counts, in the order it shows them. */
export const HTTP_KINDS = [
  "operations",
  "statuses",
  "parameters",
  "security",
  "request-members",
  "response-members",
  "branches",
  "enums",
  "gaps",
] as const;
export const WEBHOOK_KINDS = ["events", "members", "branches", "enums", "gaps"] as const;

/** A kind of location a coverage report counts. */
export type CoverageKind = (typeof HTTP_KINDS)[number] | (typeof WEBHOOK_KINDS)[number];

/**
 * The kinds recorded: "gaps" holds the `x-gap` locations schema walks and responses passed through;
 * the report adds those above any other location reached.
 */
export type SeenKind = CoverageKind;

/** Seen locations as plain lists, as a worker posts them to the main thread: [kind, pointers][]. */
export type SeenLists = [SeenKind, string[]][];

/** The locations of the contract some checked entry reached, by kind. */
export class SeenLocations {
  private readonly sets = new Map<SeenKind, Set<string>>();
  /** Counts the times the sets were emptied (see take). */
  epoch = 1;

  /** The set of one kind, made on first use. */
  of(kind: SeenKind): Set<string> {
    let set = this.sets.get(kind);
    if (set === undefined) {
      set = new Set();
      this.sets.set(kind, set);
    }
    return set;
  }

  add(kind: SeenKind, pointer: string): void {
    this.of(kind).add(pointer);
  }

  /** Every kind with what was seen of it. */
  entries(): IterableIterator<[SeenKind, Set<string>]> {
    return this.sets.entries();
  }

  /** Add what another collector (a worker's) saw. */
  merge(lists: SeenLists): void {
    for (const [kind, pointers] of lists) {
      const set = this.of(kind);
      for (const pointer of pointers) set.add(pointer);
    }
  }

  /** What was seen since the last call, as lists, and forget it (a worker posts it once a file is done). */
  take(): SeenLists {
    const lists: SeenLists = [];
    // Emptied in place: the checks' hooks hold these very sets.
    for (const [kind, set] of this.sets) {
      if (set.size > 0) lists.push([kind, [...set]]);
      set.clear();
    }
    this.epoch++;
    return lists;
  }
}
