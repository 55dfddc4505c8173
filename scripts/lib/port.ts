// Build and docs scripts take their port and signal handling from the servers' shared plumbing.
export { closeOnSignals, parsePort, reportStartError } from "../../src/server/index.js";
