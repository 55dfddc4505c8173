// The shape a --state file's contents must have before any of it is restored. The digest only proves
// the file is whole, not that the sandbox wrote it: anyone can write a file with a right digest, so
// every member the restore and the delivery queue rely on is checked first, without recursion into
// records, and a file that fails is refused as a whole, naming where (never a value).
import { exceedsJsonLimits } from "../../src/json-scan.js";
import { MAX_SCHEDULED_TIME, MAX_VIRTUAL_TIME } from "../clock/clock.js";
import { MAX_RECEIVERS, receiverAuthProblem, receiverUrl } from "../deliveries/receivers.js";
import type { Json } from "../../src/contract/json.js";
import { PRODUCTS } from "../products/index.js";
import { isObject, isString } from "./checks.js";

// Saved state is JSON of the sandbox's own making, checked member by member here.

/**
 * Nesting the sandbox's records never come near (its deepest response nests about a dozen levels):
 * readState refuses a deeper file before parsing it, so nothing recursive walks one.
 */
export const MAX_STATE_DEPTH = 64;

const isTime = (v: unknown): v is number =>
  typeof v === "number" && Number.isFinite(v) && Math.abs(v) <= MAX_SCHEDULED_TIME;

/** Where an array's first bad item is (its pointer), or undefined when every item passes. */
function firstBad(data: Json, member: string, ok: (item: Json) => boolean): string | undefined {
  const list = data[member];
  if (!Array.isArray(list)) return `/${member}`;
  const index = list.findIndex((item) => !ok(item));
  return index < 0 ? undefined : `/${member}/${index}`;
}

const DELIVERY_STATUSES = new Set(["pending", "delivered", "failed"]);

const timer = (t: Json) =>
  isObject(t) && Number.isSafeInteger(t.id) && isTime(t.at) && isString(t.kind) && isString(t.ref);

/** A saved record of a product: alone, as the product checks it, or a [safe integer, record] pair. */
const savedRecord =
  (product: (typeof PRODUCTS)[number]) =>
  (item: Json): boolean =>
    product.saved.form === "values"
      ? product.restorable(item)
      : Array.isArray(item) &&
        item.length === 2 &&
        Number.isSafeInteger(item[0]) &&
        product.restorable(item[1]);

/** Receiver credentials: the one check the CLI and the control API make too. */
const auth = (a: Json) =>
  a === undefined ||
  (isObject(a) &&
    Object.keys(a).every((k) => ["scheme", "token", "username", "password"].includes(k)) &&
    receiverAuthProblem(a) === undefined);

function receiver(r: Json): boolean {
  if (!isObject(r) || !isString(r.id) || !isString(r.url) || !isString(r.created_at)) return false;
  if (r.kind !== "events" && r.kind !== "workflow") return false;
  try {
    receiverUrl(r.url);
  } catch {
    return false;
  }
  // Workflow deliveries carry no credentials: a saved workflow receiver with some is not the sandbox's.
  return r.kind === "workflow" ? r.auth === undefined : auth(r.auth);
}

/** Whether a saved delivery's body is a JSON object, as the listing parses it to show the payload. */
function jsonObject(text: string): boolean {
  // Measured before it is parsed, here and again whenever the delivery is listed.
  if (exceedsJsonLimits(text, { maxDepth: MAX_STATE_DEPTH, maxValues: 100_000 })) return false;
  try {
    return isObject(JSON.parse(text));
  } catch {
    return false;
  }
}

const delivery = (d: Json) =>
  isObject(d) &&
  isString(d.id) &&
  isString(d.receiver_id) &&
  isString(d.channel) &&
  isString(d.event) &&
  isString(d.subject) &&
  isString(d.created_at) &&
  isString(d.body) &&
  jsonObject(d.body) &&
  DELIVERY_STATUSES.has(d.status as string) &&
  Array.isArray(d.attempts) &&
  (d.next_attempt_at === null || isTime(d.next_attempt_at)) &&
  isObject(d.headers) &&
  Object.values(d.headers).every(isString) &&
  (d.replay_of === undefined || isString(d.replay_of)) &&
  (d.erased === undefined || d.erased === "resendable" || d.erased === "withheld");

/** The pointer of the first member of saved state the sandbox cannot restore, or undefined when it can. */
export function stateProblem(data: unknown): string | undefined {
  if (!isObject(data)) return "/";
  const offset = data.clock_offset_ms;
  // Not measured against the real time of this start: a clock saved at its end has moved on with
  // real time since; the restore holds it at the end.
  if (typeof offset !== "number" || !(offset >= 0) || offset > MAX_VIRTUAL_TIME) return "/clock_offset_ms";
  const ids = (e: Json) => Array.isArray(e) && e.length === 2 && isString(e[0]) && Number.isSafeInteger(e[1]);
  const problem =
    firstBad(data, "timers", timer) ??
    firstBad(data, "ids", ids) ??
    PRODUCTS.reduce<string | undefined>(
      (found, product) => found ?? firstBad(data, product.name, savedRecord(product)),
      undefined,
    ) ??
    firstBad(data, "receivers", receiver) ??
    firstBad(data, "deliveries", delivery);
  if (problem) return problem;
  if ((data.receivers as unknown[]).length > MAX_RECEIVERS) return "/receivers";
  return repeatedId(data, "receivers") ?? repeatedId(data, "deliveries");
}

/** The pointer of the first id that an earlier member of `member` has too (the sandbox writes each once). */
function repeatedId(data: Record<string, unknown>, member: string): string | undefined {
  const seen = new Set<string>();
  for (const [i, entry] of (data[member] as { id: string }[]).entries()) {
    if (seen.has(entry.id)) return `/${member}/${i}/id`;
    seen.add(entry.id);
  }
  return undefined;
}
