// npm run mock [-- --port N --host H --key K --secret S]: serve the contract mock (127.0.0.1, --port,
// PORT, or 4010). With --key and --secret it refuses wrong credentials too, as the sandbox does.
import { parseArgs } from "node:util";
import { closeOnSignals, parsePort, reportStartError } from "../src/server/index.js";
import { startMock } from "./server.js";

const USAGE = `Usage: npm run mock -- [options]
Serve the contract mock: the service's own rejections in front of Prism's examples.

  --port N              port to listen on (default PORT or 4010)
  --host H              address to listen on (default 127.0.0.1)
  --key K --secret S    refuse any other credentials, as the sandbox does
  -h, --help            print this and exit

Stop with SIGINT or SIGTERM.`;

try {
  // Not strict: other arguments are ignored, and a bare --port is reported below.
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      port: { type: "string" },
      host: { type: "string" },
      key: { type: "string" },
      secret: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: false,
  });
  if (values.help === true) {
    console.log(USAGE);
    process.exit(0);
  }
  for (const name of ["port", "host", "key", "secret"] as const) {
    const flag = values[name];
    if (typeof flag === "boolean" || flag?.startsWith("--")) throw new Error(`--${name} needs a value`);
  }
  const port = parsePort((values.port as string | undefined) ?? process.env.PORT, 4010);
  const host = (values.host as string | undefined) ?? "127.0.0.1";
  const [apiKey, secret] = [values.key, values.secret] as (string | undefined)[];
  if ((apiKey === undefined) !== (secret === undefined)) throw new Error("--key and --secret go together");
  if (apiKey === "" || secret === "") throw new Error("--key and --secret must not be empty");
  const credentials = apiKey && secret ? { apiKey, secret } : undefined;
  const mock = await startMock({ port, host, credentials, log: (line) => console.log(line) });
  // SIGINT or SIGTERM closes the server (and its open connections), then the process exits 0. Set
  // before saying where it listens: a signal sent on reading that line finds its handler.
  closeOnSignals(() => mock.close());
  console.log(`Contract mock listening on ${mock.url}`);
} catch (error) {
  const inUse = reportStartError(
    error,
    "mock: could not start: ",
    "the port is in use; pick another with --port or PORT",
  );
  process.exit(inUse ? 1 : 2);
}
