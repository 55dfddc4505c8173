// The credentials a receiver is configured with (`--auth`), and the wrong ones the battery sends.
import { randomBytes } from "node:crypto";

/** Credentials of the events URL, as the developer dashboard configures them. */
export type ReceiverAuth =
  { scheme: "bearer"; token: string } | { scheme: "basic"; user: string; password: string };

/** Parse `bearer:TOKEN` or `basic:USER:PASS`; the error names the form, never the value. */
export function parseReceiverAuth(text: string): ReceiverAuth {
  const colon = text.indexOf(":");
  const scheme = text.slice(0, colon).toLowerCase();
  const rest = text.slice(colon + 1);
  if (colon > 0 && scheme === "bearer" && rest.length > 0) return { scheme: "bearer", token: rest };
  const sep = rest.indexOf(":");
  if (colon > 0 && scheme === "basic" && sep > 0 && sep < rest.length - 1)
    return { scheme: "basic", user: rest.slice(0, sep), password: rest.slice(sep + 1) };
  throw new Error("--auth must be bearer:TOKEN or basic:USER:PASS");
}

/** The Authorization header value of credentials. */
export function authorization(auth: ReceiverAuth): string {
  return auth.scheme === "bearer"
    ? `Bearer ${auth.token}`
    : `Basic ${Buffer.from(`${auth.user}:${auth.password}`).toString("base64")}`;
}

/** Credentials of the same scheme that are not the configured ones. */
export function wrongAuth(auth: ReceiverAuth): ReceiverAuth {
  const other = `wrong-${randomBytes(9).toString("hex")}`;
  return auth.scheme === "bearer" ? { scheme: "bearer", token: other } : { ...auth, password: other };
}
