// Preloaded (node --import) into a tool run by the tests: any connection the tool opens, other than
// to loopback, is refused and recorded in the file named by NO_NETWORK_LOG, so a test can require
// that the tool sent nothing anywhere.
import { appendFileSync } from "node:fs";
import net from "node:net";

const log = process.env.NO_NETWORK_LOG;
const loopback = (host) =>
  host === undefined || host === "localhost" || /^127\./.test(host) || host === "::1";
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function guardedConnect(...args) {
  const first = args[0];
  const options = Array.isArray(first) ? first[0] : first;
  const host =
    typeof options === "object" && options !== null
      ? options.host
      : typeof args[1] === "string"
        ? args[1]
        : undefined;
  const path =
    typeof options === "object" && options !== null
      ? options.path
      : typeof first === "string"
        ? first
        : undefined;
  if (path === undefined && !loopback(host)) {
    if (log) appendFileSync(log, `${process.pid} ${String(host)}\n`);
    throw new Error(`network access refused by the test: ${String(host)}`);
  }
  return connect.apply(this, args);
};
