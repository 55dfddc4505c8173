// The members a triggered event's overrides name (`--set member=value`): a JSON Pointer
// (`/verification/status`) or a dotted path (`verification.status`), walked and set without ever
// reading an inherited member or making a name from input a key through an object's setters.

/** Names that mean something to every object (its prototype and constructor): never set. */
const RESERVED = new Set(["__proto__", "constructor", "prototype"]);

/** How long a member's path may be, in names: the contract's deepest event nests 6 levels. */
export const MAX_MEMBER_DEPTH = 32;

/** An array index as RFC 6901 writes it: no sign, no leading zero. */
const INDEX = /^(0|[1-9][0-9]*)$/;

/** The names of a member, or an Error saying what is wrong with it (never quoting it). */
export function memberPath(member: string): string[] {
  if (member === "" || member === "/")
    throw new Error("names no member: the payload is set member by member");
  let names: string[];
  if (member.startsWith("/")) {
    names = member.slice(1).split("/");
    if (names.some((name) => /~(?![01])/.test(name)))
      throw new Error("is not a JSON Pointer: ~ is written ~0 and / is written ~1");
    names = names.map((name) => name.replaceAll("~1", "/").replaceAll("~0", "~"));
  } else names = member.split(".");
  if (names.some((name) => name === "")) throw new Error("has an empty name in it");
  if (names.length > MAX_MEMBER_DEPTH) throw new Error(`nests more than ${MAX_MEMBER_DEPTH} names deep`);
  if (names.some((name) => RESERVED.has(name)))
    throw new Error("names __proto__, constructor or prototype, which no event has");
  return names;
}

/** The value of an own member or an array's element, or undefined when there is none. */
function child(at: object, name: string): unknown {
  if (Array.isArray(at)) return INDEX.test(name) ? at[Number(name)] : undefined;
  return Object.hasOwn(at, name) ? (at as Record<string, unknown>)[name] : undefined;
}

/** Define a member as data, as JSON.parse would: no setter (`__proto__`'s) ever runs. */
function define(at: object, name: string, value: unknown): void {
  Object.defineProperty(at, name, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Set the member `names` leads to in `payload` (objects missing on the way are made), or throw an
 * Error saying why it cannot be (a value on the way is not an object, an index past the end).
 */
export function setMember(payload: object, names: readonly string[], value: unknown): void {
  let at: object = payload;
  for (const [depth, name] of names.entries()) {
    const last = depth === names.length - 1;
    if (Array.isArray(at)) {
      if (!INDEX.test(name) || Number(name) > at.length)
        throw new Error("indexes an array past its end (or not by a number)");
      if (last) {
        at[Number(name)] = value;
        return;
      }
    } else if (last) {
      define(at, name, value);
      return;
    }
    let next = child(at, name);
    if (next === undefined) {
      next = {};
      if (Array.isArray(at)) at.push(next);
      else define(at, name, next);
    }
    if (typeof next !== "object" || next === null)
      throw new Error("goes through a value that is not an object or an array");
    at = next;
  }
}

/** A `member=value` of the command line: the value as JSON when it parses, else the text itself. */
export function parseAssignment(text: string): { member: string; value: unknown } {
  const at = text.indexOf("=");
  if (at < 1) throw new Error("--set takes member=value");
  const raw = text.slice(at + 1);
  let value: unknown = raw;
  try {
    value = JSON.parse(raw);
  } catch {
    // Not JSON: the text is the value (a string), as `--set reference=abc` means.
  }
  return { member: text.slice(0, at), value };
}
