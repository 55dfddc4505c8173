import type { IncomingMessage } from "node:http";

/** A request's headers as single strings (repeats joined), in a null-prototype record: their names come from the client. */
export function headerRecord(req: IncomingMessage): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = Object.create(null);
  for (const [name, value] of Object.entries(req.headers))
    out[name] = Array.isArray(value) ? value.join(", ") : value;
  return out;
}
