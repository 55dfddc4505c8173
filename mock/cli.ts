// npm run mock [-- --port N]: serve the contract mock on 127.0.0.1 (--port, PORT, or 4010).
import { parseArgs } from "node:util";
import { closeOnSignals, parsePort, reportStartError } from "../scripts/lib/port.js";
import { startMock } from "./server.js";

try {
  // Not strict: other arguments are ignored, and a bare --port is reported below.
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { port: { type: "string" } },
    strict: false,
  });
  const flag = values.port;
  if (typeof flag === "boolean" || flag?.startsWith("--")) throw new Error("--port needs a value");
  const port = parsePort(flag ?? process.env.PORT, 4010);
  const mock = await startMock({ port, log: (line) => console.log(line) });
  console.log(`Contract mock listening on ${mock.url}`);
  closeOnSignals(() => mock.close());
} catch (error) {
  const inUse = reportStartError(
    error,
    "mock: could not start: ",
    "the port is in use; pick another with --port or PORT",
  );
  process.exit(inUse ? 1 : 2);
}
