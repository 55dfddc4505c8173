// Phone numbers in drawn bodies: a made-up number could be anyone's, and a biometric request with
// one sends a text message. So every phone member (a member whose name says phone) of a drawn body
// is one of the contract's own example numbers, as in every other phase; a body whose broken rule
// is the phone member itself is sent only to this machine.
import type { Json } from "../../src/contract/json.js";
import type { BrokenBody, GeneratedBody } from "./generate/index.js";

const PHONE = /phone/i;
/** How deep a body or an example is walked (the contract's phone members sit two levels down at most). */
const MAX_DEPTH = 6;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** The contract's example numbers, by the member name they are given under (request and webhook examples alike). */
export type Phones = Map<string, string[]>;

/** Every number a phone member holds in the contract's examples, by member name. */
export function examplePhones(document: Json): Phones {
  const found: Phones = new Map();
  const walk = (node: unknown, depth: number) => {
    if (depth > MAX_DEPTH || node === null || typeof node !== "object") return;
    for (const [key, value] of Object.entries(node)) {
      if (PHONE.test(key) && typeof value === "string" && /^\+?[0-9]{6,15}$/.test(value)) {
        const list = found.get(key) ?? [];
        if (!list.includes(value)) found.set(key, [...list, value].sort());
      } else walk(value, depth + 1);
    }
  };
  for (const example of Object.values<Json>(document?.components?.examples ?? {})) walk(example?.value, 0);
  return found;
}

/** The number a member takes: an example's of the same name (its format), else undefined. */
const numberFor = (phones: Phones, key: string): string | undefined => phones.get(key)?.[0];

/** A copy of a JSON value with every phone string replaced by an example's number; undefined when one has none. */
function replaced(value: unknown, phones: Phones, depth = 0): { value: unknown } | undefined {
  if (depth > MAX_DEPTH || value === null || typeof value !== "object") return { value };
  if (Array.isArray(value)) {
    const items = value.map((v) => replaced(v, phones, depth + 1));
    return items.every((i) => i !== undefined) ? { value: items.map((i) => i!.value) } : undefined;
  }
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    const next =
      PHONE.test(key) && typeof member === "string"
        ? numberFor(phones, key)
        : replaced(member, phones, depth + 1)?.value;
    if (next === undefined && member !== undefined) return undefined;
    Object.defineProperty(out, key, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return { value: out };
}

/** Whether a JSON value holds a phone string anywhere. */
function holdsPhone(value: unknown, depth = 0): boolean {
  if (depth > MAX_DEPTH || !isRecord(value))
    return Array.isArray(value) && value.some((v) => holdsPhone(v, depth + 1));
  return Object.entries(value).some(
    ([key, member]) => (PHONE.test(key) && typeof member === "string") || holdsPhone(member, depth + 1),
  );
}

/**
 * The drawn body to send: each phone member an example's number of the same member name; undefined
 * when it cannot be sent (its broken rule is a phone member's, away from this machine, or a member
 * has no example number).
 */
export function withExamplePhones<T extends GeneratedBody>(
  drawn: T,
  phones: Phones,
  loopback: boolean,
): T | undefined {
  if (!drawn.body.contentType.includes("json") || !holdsPhone(drawn.value)) return drawn;
  const broken = (drawn as Partial<BrokenBody>).rule;
  if (broken !== undefined && PHONE.test(broken)) return loopback ? drawn : undefined;
  const made = replaced(drawn.value, phones);
  if (!made) return undefined;
  return {
    ...drawn,
    value: made.value,
    body: { ...drawn.body, bytes: Buffer.from(JSON.stringify(made.value)) },
  };
}
