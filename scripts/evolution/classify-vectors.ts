// The receiver test vectors (vectors/receiver.json) against the last release: a receiver team's
// unit tests run them, so a vector whose expected answer changed breaks a receiver that passed it,
// and so does a new format. A vector removed, added or with new bytes is listed, not breaking.
import type { Json } from "../../src/contract/json.js";
import type { ContractChange } from "./change.js";

/** The members of a vector's expectation that a receiver's behaviour is held to. */
const HELD = ["status", "tolerated", "no_answer_ok", "then_still_answers", "handler_runs"] as const;

/** Vectors by case and URL (ids carry a number that moves when a case is inserted), repeats numbered. */
function byKey(document: Json): Map<string, Json> {
  const out = new Map<string, Json>();
  for (const vector of Array.isArray(document?.vectors) ? document.vectors : []) {
    const base = `vector \`${String(vector?.case)}\` (${String(vector?.url)} URL)`;
    let key = base;
    for (let n = 2; out.has(key); n++) key = `${base} #${n}`;
    out.set(key, vector);
  }
  return out;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Each change of the receiver test vectors since the earlier version; none when it had none. */
export function vectorChanges(before: Json | undefined, after: Json | undefined): ContractChange[] {
  if (before === undefined) return [];
  const change = (breaking: boolean, where: string, text: string, member?: string): ContractChange => ({
    audience: "receiver",
    breaking,
    where,
    ...(member ? { member } : {}),
    text: `${where}: ${text}`,
  });
  if (after === undefined)
    return [change(true, "the receiver test vectors", "vectors/receiver.json was removed.")];
  const changes: ContractChange[] = [];
  if (before.format !== after.format)
    changes.push(
      change(true, "the receiver test vectors", `format ${before.format} became ${after.format}.`),
    );
  const earlier = byKey(before);
  const now = byKey(after);
  for (const [where, old] of earlier) {
    const vector = now.get(where);
    if (!vector) {
      changes.push(change(false, where, "removed."));
      continue;
    }
    for (const member of HELD)
      if (!same(old?.expect?.[member], vector?.expect?.[member]))
        changes.push(
          change(
            true,
            where,
            `expect.${member} was ${JSON.stringify(old?.expect?.[member])}, is ${JSON.stringify(vector?.expect?.[member])}.`,
            `\`expect.${member}\``,
          ),
        );
    if (!same(old?.headers, vector?.headers) || old?.body?.sha256 !== vector?.body?.sha256)
      changes.push(change(false, where, "its headers or body changed."));
  }
  for (const where of now.keys()) if (!earlier.has(where)) changes.push(change(false, where, "added."));
  return changes;
}
