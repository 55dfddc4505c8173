// What keeps the probe from doing harm where it is pointed: which hosts are this machine, and ids no
// deployment has, for operations on a record when the deployment is not a local one.
import { randomUUID } from "node:crypto";

/** Whether a URL's host is this machine (127.0.0.0/8, ::1, localhost). */
export function isLoopback(url: URL): boolean {
  const host = url.hostname.toLowerCase();
  return host === "localhost" || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** An id the deployment cannot have: a fresh UUID, or an integer far past any the examples use. */
export function unknownId(schema: { type?: unknown } | undefined, random: () => number): string {
  if (schema?.type === "integer") return String(900_000_000 + Math.floor(random() * 99_999_999));
  return randomUUID();
}
