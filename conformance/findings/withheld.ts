// Values a recording withheld. The recorders replace every recorded value with a stand-in made to be
// judged as the value was; where none is (a multipart upload, a PDF that failed its check, a value
// whose fault no stand-in keeps), the entry names the location and carries the findings the live
// check made there. `check` then reports that location as withheld, with those findings: never a
// violation the stand-in alone would make, never a pass the value did not earn. A file read back may
// come from anyone: of a recorded finding, only its location and check are taken, and its message is
// made again from the check's rule, so that a report never shows words a file chose.
import { EntryError, type Raw } from "../traffic/input-error.js";
import type { CheckName, EntryResult, Finding, FindingLocation } from "./findings.js";
import { CHECK_NAMES, CHECK_RULES } from "./rules.js";
import type { Vocabulary } from "./vocabulary.js";

/** The HAR entry member that holds what was withheld (HAR 1.2 allows members starting with `_`). */
export const WITHHELD_MEMBER = "_idvWithheld";

/** Where a withheld value was: the part of the exchange, and a JSON pointer into it ("" for all of it). */
export interface WithheldLocation {
  in: FindingLocation;
  pointer: string;
}

/** What an entry withheld, and the live check's findings at those locations. */
export interface Withheld {
  locations: WithheldLocation[];
  violations: Finding[];
  warnings: Finding[];
}

/** The check whose warning marks a withheld location in a report. */
export const WITHHELD_CHECK = "value_withheld";

const LOCATIONS = new Set<string>([
  "entry",
  "request.route",
  "request.header",
  "request.parameter",
  "request.body",
  "response.status",
  "response.header",
  "response.body",
]);

/** The checks whose findings a recorded exchange may carry: those that judge an entry or an exchange. */
const CHECKS = new Set<string>(
  CHECK_NAMES.filter((name) => ["entry", "exchange"].includes(CHECK_RULES[name].judges)),
);

/** Findings and locations one entry may carry: far more than the checks make on one exchange. */
const MAX_ITEMS = 1024;
const MAX_POINTER = 1024;

/** The message of a finding read from a recording: the check's own words, never the file's. */
export function recordedMessage(check: CheckName, kind: "violation" | "warning"): string {
  const asserted = CHECK_RULES[check].description.replace(/\.$/, "");
  const what = `${asserted.charAt(0).toLowerCase()}${asserted.slice(1)}`;
  return kind === "violation"
    ? `when checked live, this did not hold here: ${what}`
    : `when checked live, the check warned here: ${what}`;
}

/** Whether a location holds a finding: the same part, at the pointer or below it. */
export function covers(location: WithheldLocation, finding: Finding): boolean {
  if (location.in === "entry") return true;
  if (finding.in !== location.in) return false;
  const p = location.pointer;
  return p === "" || finding.pointer === p || finding.pointer.startsWith(`${p}/`);
}

const coveredBy = (locations: WithheldLocation[]) => (f: Finding) => locations.some((l) => covers(l, f));

/** The warning a report shows for a withheld location. */
function notice(location: WithheldLocation, violations: Finding[]): Finding {
  const here = violations.filter((f) => covers(location, f)).length;
  return {
    in: location.in,
    check: WITHHELD_CHECK as CheckName,
    pointer: location.pointer,
    message: `the recording withheld the value here (no stand-in is judged as it was); when it ran, the check found ${here === 0 ? "no violation" : here === 1 ? "1 violation" : `${here} violations`} here, reported as recorded`,
  };
}

/**
 * A result with what was withheld put back: the findings at withheld locations are the recorded live
 * ones, each location gets a `value_withheld` warning, and the verdict follows.
 */
export function mergeWithheld(result: EntryResult, withheld: Withheld, vocabulary?: Vocabulary): EntryResult {
  const safe = (f: Finding): Finding => (vocabulary ? { ...f, pointer: vocabulary.pointer(f.pointer) } : f);
  const locations = withheld.locations.map((l) => ({
    in: l.in,
    pointer: vocabulary ? vocabulary.pointer(l.pointer) : l.pointer,
  }));
  const held = coveredBy(locations);
  const violations = [
    ...result.violations.filter((f) => !held(f)),
    ...withheld.violations.map(safe).filter(held),
  ];
  const warnings = [
    ...result.warnings.filter((f) => !held(f)),
    ...withheld.warnings.map(safe).filter(held),
    ...locations.map((l) => notice(l, violations)),
  ];
  return { ...result, ok: violations.length === 0, violations, warnings, withheld: locations };
}

/** A finding's identity for comparing verdicts. */
const key = (f: Finding): string => `${f.in}\u0000${f.check}\u0000${f.pointer}\u0000${f.message}`;

function counts(findings: Finding[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const f of findings)
    if (f.check !== (WITHHELD_CHECK as CheckName)) out.set(key(f), (out.get(key(f)) ?? 0) + 1);
  return out;
}

/** The findings of one list that the other lacks (as many times as it lacks them). */
function missing(from: Finding[], other: Finding[]): Finding[] {
  const left = counts(other);
  const out: Finding[] = [];
  for (const f of from) {
    if (f.check === (WITHHELD_CHECK as CheckName)) continue;
    const n = left.get(key(f)) ?? 0;
    if (n > 0) left.set(key(f), n - 1);
    else out.push(f);
  }
  return out;
}

/** Whether two verdicts on an exchange agree: the route, and every violation and warning (withheld notices aside). */
export function sameVerdict(a: EntryResult, b: EntryResult): boolean {
  return (
    a.ok === b.ok &&
    a.method === b.method &&
    a.path === b.path &&
    a.operationId === b.operationId &&
    differences(a, b).length === 0
  );
}

/** The findings on which two verdicts differ, from either side. */
export function differences(a: EntryResult, b: EntryResult): Finding[] {
  return [
    ...missing(a.violations, b.violations),
    ...missing(b.violations, a.violations),
    ...missing(a.warnings, b.warnings),
    ...missing(b.warnings, a.warnings),
  ];
}

/**
 * What a recorder writes for an entry whose stand-ins were judged otherwise than its values: the
 * locations where the verdicts differ, and the live findings there. Undefined when they agree.
 */
export function withheldFor(live: EntryResult, recorded: EntryResult): Withheld | undefined {
  if (sameVerdict(live, recorded)) return undefined;
  const seen = new Set<string>();
  const locations: WithheldLocation[] = [];
  for (const f of differences(live, recorded)) {
    const id = `${f.in}\u0000${f.pointer}`;
    if (seen.has(id)) continue;
    seen.add(id);
    locations.push({ in: f.in, pointer: f.pointer });
  }
  // Another route, or a difference the locations do not capture: the whole entry is withheld.
  const routed = live.path === recorded.path && live.operationId === recorded.operationId;
  const pick = (l: WithheldLocation[]) => ({
    locations: l,
    violations: live.violations.filter(coveredBy(l)),
    warnings: live.warnings.filter(coveredBy(l)),
  });
  if (!routed || locations.length === 0 || !sameVerdict(live, mergeWithheld(recorded, pick(locations))))
    return wholeEntry(live);
  return pick(locations);
}

/** The whole entry withheld: every finding is the live one. */
export function wholeEntry(live: EntryResult): Withheld {
  return {
    locations: [{ in: "entry", pointer: "" }],
    violations: live.violations,
    warnings: live.warnings,
  };
}

/** Printable text of bounded length (a pointer, whose tokens the contract's vocabulary then masks). */
function text(value: unknown, max: number, where: string): string {
  if (typeof value !== "string") throw new EntryError(`${where} is not a string`);
  // Control characters would reach a terminal; the recorders never write them.
  let out = "";
  for (const c of value.slice(0, max)) {
    const code = c.charCodeAt(0);
    out += code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029 ? " " : c;
  }
  return out;
}

function list(raw: Raw, where: string): Raw[] {
  if (!Array.isArray(raw)) throw new EntryError(`${where} is not an array`);
  if (raw.length > MAX_ITEMS) throw new EntryError(`${where} has more than ${MAX_ITEMS} items`);
  return raw;
}

function location(raw: Raw, where: string): WithheldLocation {
  if (raw === null || typeof raw !== "object") throw new EntryError(`${where} is not an object`);
  if (typeof raw.in !== "string" || !LOCATIONS.has(raw.in))
    throw new EntryError(`${where}.in is not a part of an exchange`);
  const pointer = text(raw.pointer, MAX_POINTER, `${where}.pointer`);
  if (pointer !== "" && !pointer.startsWith("/"))
    throw new EntryError(`${where}.pointer is not a JSON pointer`);
  return { in: raw.in as FindingLocation, pointer };
}

/** A recorded finding: its location and check; its message (the file's words) is left unread. */
function finding(raw: Raw, where: string, kind: "violation" | "warning"): Finding {
  const at = location(raw, where);
  if (typeof raw.check !== "string" || !CHECKS.has(raw.check))
    throw new EntryError(`${where}.check is not a check of the suite`);
  const check = raw.check as CheckName;
  return { ...at, check, message: recordedMessage(check, kind) };
}

/** The withheld member of a HAR entry, read as hostile input; undefined when there is none. */
export function readWithheld(raw: Raw): Withheld | undefined {
  if (raw === undefined) return undefined;
  const where = WITHHELD_MEMBER;
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    throw new EntryError(`${where} is not an object`);
  const locations = list(raw.locations, `${where}.locations`).map((l, i) =>
    location(l, `${where}.locations[${i}]`),
  );
  const findings = (name: "violations" | "warnings") =>
    list(raw[name] ?? [], `${where}.${name}`).map((f, i) =>
      finding(f, `${where}.${name}[${i}]`, name === "violations" ? "violation" : "warning"),
    );
  return { locations, violations: findings("violations"), warnings: findings("warnings") };
}

/** The member as a recorder writes it. */
export function withheldMember(withheld: Withheld): Record<string, unknown> {
  return {
    comment:
      "No stand-in of the values at these locations is judged as the values were; the findings are those of the check when the exchange was recorded.",
    ...withheld,
  };
}
