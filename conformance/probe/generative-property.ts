// One property of the generative phase: fast-check draws requests from an arbitrary; each draw is
// sent and judged. The first failure is shrunk by fast-check's own shrinking to a minimal draw that
// fails for the same cause, and reported once, with the run's seed. Every request is recorded; the
// shrinking's own requests are not listed (each would repeat the one failure).
import fc from "fast-check";
import type { ActiveResult } from "./active-report.js";
import type { ProbeSession } from "./session.js";

/** A property of the generative phase. */
export interface GenerativeProperty<T> {
  /** Stable words for the property: its fast-check seed is made from them and the run's seed. */
  key: string;
  arbitrary: fc.Arbitrary<T>;
  /** Send one draw (quietly: its results are the property's to report); undefined when the budget is spent. */
  attempt: (value: T) => Promise<ActiveResult[] | undefined>;
  numRuns: number;
  timeLimitMs: number;
}

/** A property before its share of the budgets is known; `cost` is its requests per draw. */
export interface Planned<T> {
  key: string;
  arbitrary: fc.Arbitrary<T>;
  attempt: GenerativeProperty<T>["attempt"];
  cost: number;
}

/** The causes already reported in a run: a cause is reported once, whichever property finds it. */
export type Reported = Set<string>;

/** What one failure is of: the operation, and each check that failed where. */
export function causeOf(result: ActiveResult): string {
  const findings = [...new Set(result.violations.map((v) => `${v.check} ${v.in} ${v.pointer}`))].sort();
  return `${result.operationId ?? result.path} ${findings.join(", ")}`;
}

/** A 31-bit seed of the run's seed and a property's key (FNV-1a): the same for every run of that seed. */
export function propertySeed(runSeed: number, key: string): number {
  let hash = 0x811c9dc5 ^ (runSeed >>> 0);
  for (const char of key) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
  return hash & 0x7fffffff;
}

const errorName = (error: unknown): string => (error instanceof Error ? error.name : typeof error);

/** Numbers a run of one property reports to the phase. */
export interface PropertyRun {
  requests: number;
  shrinks: number;
  failed: boolean;
}

/** Run one property against the session; its passes (before any failure) and each new cause are reported. */
export async function checkProperty<T>(
  session: ProbeSession,
  p: GenerativeProperty<T>,
  reported: Reported,
): Promise<PropertyRun> {
  let cause: string | undefined;
  let last: ActiveResult | undefined;
  let requests = 0;
  const others = new Map<string, ActiveResult>();
  const property = fc.asyncProperty(p.arbitrary, async (value) => {
    const results = await p.attempt(value);
    // A spent budget sends nothing: the draw says nothing, and the shrinking stops at what it has.
    if (!results) return true;
    requests += results.length;
    const failed = results.find((r) => !r.ok);
    if (cause === undefined) for (const r of results) if (r.ok) session.add(r);
    if (!failed) return true;
    const key = causeOf(failed);
    cause ??= key;
    // The shrinking keeps to the first cause: a smaller draw failing otherwise is another finding.
    if (key !== cause) {
      if (!others.has(key)) others.set(key, failed);
      return true;
    }
    last = failed;
    return false;
  });
  const details = await fc.check(property, {
    seed: propertySeed(session.options.seed, p.key),
    numRuns: p.numRuns,
    interruptAfterTimeLimit: p.timeLimitMs,
    markInterruptAsFailure: false,
  });
  const seed = session.options.seed;
  // A draw that threw (the probe's own fault, not the deployment's) is said, never dropped unseen.
  if (details.failed && last === undefined)
    session.notes.push(
      `generative: the property ${p.key} stopped on an error of the probe's own (${errorName(details.errorInstance)})`,
    );
  if (last && cause !== undefined && !reported.has(cause)) {
    reported.add(cause);
    const shrunk =
      details.numShrinks === 0
        ? "minimal as drawn"
        : `shrunk in ${details.numShrinks === 1 ? "1 step" : `${details.numShrinks} steps`}`;
    session.add({ ...last, case: `${last.case} (${shrunk})`, seed });
  }
  for (const [key, result] of others)
    if (!reported.has(key)) {
      reported.add(key);
      session.add({ ...result, case: `${result.case} (found while shrinking another failure)`, seed });
    }
  return { requests, shrinks: details.numShrinks, failed: last !== undefined };
}
