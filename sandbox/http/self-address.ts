// Receivers that point back at the sandbox. The Test button and deliveries POST to a receiver's URL;
// one that is the sandbox's own Test button (or two pressing each other's) nested calls until file
// descriptors ran out. Two guards: a receiver URL naming the sandbox's own listening address and
// port is refused (at registration, at Test and at state load), and every request the sandbox sends
// carries SENT_BY_SANDBOX, which the sandbox refuses on every route, whatever alias or proxy brought
// it back. The first needs no DNS (a name is never resolved here); the second catches the rest at
// the first hop, so a loop costs one refused request per Test or delivery attempt.
import { BlockList, isIP } from "node:net";
import { hostname, networkInterfaces } from "node:os";
import type { Answer } from "../../src/server/answer.js";
import { rejection } from "../../src/server/error-body.js";
import { shapeOfPath } from "../../src/server/operations.js";

/** The header on every request the sandbox sends (deliveries and the Test button). */
export const SENT_BY_SANDBOX = "Idv-Sandbox-Sent";

/** Where the sandbox listens: the address its server is bound to and its port. */
export interface ListeningOn {
  host: string;
  port: number;
}

/** Addresses that reach this host whatever it listens on: loopback, and the unspecified ones (Linux connects them locally). */
function alwaysLocal(): BlockList {
  const list = new BlockList();
  list.addSubnet("127.0.0.0", 8, "ipv4");
  list.addAddress("0.0.0.0", "ipv4");
  list.addAddress("::1", "ipv6");
  list.addAddress("::", "ipv6");
  return list;
}

/** Whether `host` (a bare address, no brackets) is an address the listener answers on. */
function isOwnAddress(host: string, listening: ListeningOn): boolean {
  const family = isIP(host);
  if (family === 0) return false;
  const type = family === 4 ? "ipv4" : "ipv6";
  if (alwaysLocal().check(host, type)) return true;
  const own = new BlockList();
  const bound = isIP(listening.host);
  if (bound !== 0) own.addAddress(listening.host, bound === 4 ? "ipv4" : "ipv6");
  // Bound to every interface: each of this host's addresses reaches it.
  if (listening.host === "0.0.0.0" || listening.host === "::")
    for (const nets of Object.values(networkInterfaces()))
      for (const net of nets ?? []) {
        // An IPv6 address with a zone (fe80::1%eth0) is added without it.
        const address = net.address.split("%")[0] as string;
        if (isIP(address) !== 0) own.addAddress(address, net.family === "IPv4" ? "ipv4" : "ipv6");
      }
  return own.check(host, type);
}

/** Names that resolve to this host without asking DNS: localhost and its subdomains (RFC 6761), and the host's own name. */
function isOwnName(name: string, listening: ListeningOn): boolean {
  const bare = name.toLowerCase().replace(/\.$/, "");
  if (bare === "localhost" || bare.endsWith(".localhost")) return true;
  if (bare === hostname().toLowerCase()) return true;
  return bare === listening.host.toLowerCase();
}

/**
 * Whether a receiver URL names the sandbox itself: its port is the sandbox's, and its host is one
 * of the sandbox's listening addresses, any loopback or unspecified address, or a name that is
 * this host's without DNS. A name that DNS or a proxy maps back here passes; SENT_BY_SANDBOX
 * stops that one at its first request.
 */
export function pointsAtSandbox(url: string, listening: ListeningOn | undefined): boolean {
  if (!listening) return false;
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return false;
  }
  const port = target.port === "" ? (target.protocol === "https:" ? 443 : 80) : Number(target.port);
  if (port !== listening.port) return false;
  const host = target.hostname.replace(/^\[(.*)\]$/, "$1");
  return isOwnAddress(host, listening) || (isIP(host) === 0 && isOwnName(host, listening));
}

/** Why a receiver URL is refused when it names the sandbox itself (the address, never the path or query). */
export const SELF_RECEIVER =
  "must not point at this sandbox itself (its own address and port): deliveries and the Test button would call the sandbox back, without end";

/** The status of a request the sandbox sent to itself: 508 Loop Detected (RFC 5842). */
export const LOOP_STATUS = 508;

const LOOP_MESSAGE =
  "This request was sent by an idv-contract sandbox (it carries the Idv-Sandbox-Sent header): a receiver points back at a sandbox, through an alias or a proxy. It is refused so that the calls cannot loop; point the receiver at your own endpoint.";

/**
 * The answer to a request the sandbox sent (it carries SENT_BY_SANDBOX), or undefined for any
 * other: 508 with `LOOP_DETECTED`, in the control API's error shape under `controlPrefix`, else in
 * the service's shape for the path.
 */
export function loopRefusal(
  req: { headers: Record<string, string | string[] | undefined> },
  pathname: string,
  controlPrefix: string,
): Answer | undefined {
  if (req.headers[SENT_BY_SANDBOX.toLowerCase()] === undefined) return undefined;
  const control = pathname === controlPrefix || pathname.startsWith(`${controlPrefix}/`);
  const body = control
    ? { error_code: "LOOP_DETECTED", message: LOOP_MESSAGE }
    : rejection(shapeOfPath(pathname), LOOP_STATUS, "LOOP_DETECTED", LOOP_MESSAGE, {}).body;
  return { status: LOOP_STATUS, json: body };
}
