// npm run mock [-- --port N --host H --key K --secret S]: serve the contract mock (127.0.0.1, --port,
// PORT, or 4010). With --key and --secret it refuses wrong credentials too, as the sandbox does. Its
// command line is read by the package's one parser (src/cli/args.ts), as idv-sandbox's is: an
// unknown flag, or one without its value, is one line and the usage, exit 2; so is a start that
// failed (a port in use, named with its host), as idv-sandbox says it (src/server startFailed).
import { asUsage, parseFlags, readCommandLine, UsageError } from "../src/cli/args.js";
import { closeOnSignals, parsePort, startFailed } from "../src/server/index.js";
import { startMock } from "./server.js";

const USAGE = `Usage: npm run mock -- [options]
Serve the contract mock: the service's own rejections in front of Prism's examples.

  --port N              port to listen on (default PORT or 4010)
  --host H              address to listen on (default 127.0.0.1)
  --key K --secret S    refuse any other credentials, as the sandbox does
  -h, --help            print this and exit

Stop with SIGINT or SIGTERM.`;

const FLAGS = {
  port: { type: "string" },
  host: { type: "string" },
  key: { type: "string" },
  secret: { type: "string" },
} as const;

/** The mock's options from its command line, or `{ help: true }`; a UsageError naming what is wrong. */
function parse(argv: string[], env: NodeJS.ProcessEnv) {
  const { help, values, positionals } = parseFlags(argv, FLAGS);
  if (help) return { help: true as const };
  if (positionals.length > 0) throw new UsageError("the mock takes no arguments, only flags");
  const { key: apiKey, secret } = values;
  if ((apiKey === undefined) !== (secret === undefined))
    throw new UsageError("--key and --secret go together");
  return {
    help: false as const,
    port: asUsage(() => parsePort(values.port ?? env.PORT, 4010, "--port")),
    host: values.host ?? "127.0.0.1",
    credentials: apiKey && secret ? { apiKey, secret } : undefined,
  };
}

const io = { stdout: process.stdout, stderr: process.stderr };
const args = await readCommandLine("mock", USAGE, io, () => parse(process.argv.slice(2), process.env));
if (typeof args === "number") process.exit(args);
try {
  const mock = await startMock({ ...args, log: (line) => console.log(line) });
  // SIGINT or SIGTERM closes the server (and its open connections), then the process exits 0. Set
  // before saying where it listens: a signal sent on reading that line finds its handler.
  closeOnSignals(() => mock.close());
  console.log(`Contract mock listening on ${mock.url}`);
} catch (error) {
  // Exit 2, as idv-sandbox: a start that failed is told apart from a run that ended badly.
  process.exit(
    startFailed(error, "mock: could not start: ", {
      host: args.host,
      port: args.port,
      move: "pick another with --port or PORT (0 picks a free one)",
    }),
  );
}
