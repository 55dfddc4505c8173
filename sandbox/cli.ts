#!/usr/bin/env node
// idv-sandbox (npx idv-sandbox, npm run sandbox) [--port N --host H --key K --secret S
//   --webhook-url URL --webhook-auth bearer:TOKEN|basic:USER:PASS --state FILE --json | --print-url]:
// serve the stateful sandbox. --port 0 picks a free port; --json makes the first line a JSON object
// (url, control, pid, and the credentials when generated), --print-url makes it the URL alone.
// The command line is read by the package's one parser (src/cli/args.ts), as idv-conformance's is.
import { parseFlags, readCommandLine, UsageError } from "../src/cli/args.js";
import { closeOnSignals, parsePort, reportStartError } from "../src/server/index.js";
import { receiverUrl } from "./control.js";
import { parseWebhookAuth, startSandbox } from "./start.js";
import { StateFileError } from "./state-file.js";

const USAGE = `Usage: idv-sandbox [options]
Serve the stateful sandbox of the identity-verification service.

  --port N              port to listen on (0: a free one; default PORT or 4010)
  --host H              address to listen on (default 127.0.0.1)
  --key K --secret S    the credentials it accepts (default: IDV_API_KEY and IDV_API_SECRET from
                        the environment; without them, generated and printed once)
  --webhook-url URL     register a receiver for biometric and EDD events
  --webhook-auth A      its credentials: bearer:TOKEN or basic:USER:PASS
  --state FILE          keep records, receivers, deliveries and the clock in FILE
  --json                first line: JSON with the url, the control API, the server's pid and
                        generated credentials
  --print-url           first line: the url alone
  -h, --help            print this and exit

The control API is served under /_sandbox. Stop with SIGINT or SIGTERM sent to the pid --json prints
(through npx, the pid of npx's own process is not the server's).`;

const FLAGS = {
  port: { type: "string" },
  host: { type: "string" },
  key: { type: "string" },
  secret: { type: "string" },
  "webhook-url": { type: "string" },
  "webhook-auth": { type: "string" },
  state: { type: "string" },
  json: { type: "boolean" },
  "print-url": { type: "boolean" },
} as const;

/** A check of a flag's value that throws Error, as a usage error. */
function usage<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** The credentials: the flags, else IDV_API_KEY and IDV_API_SECRET, else none (generated). */
function credentialsOf(key: string | undefined, secret: string | undefined, env: NodeJS.ProcessEnv) {
  if ((key === undefined) !== (secret === undefined)) throw new UsageError("--key and --secret go together");
  if (key !== undefined && secret !== undefined) return { apiKey: key, secret };
  const [apiKey, apiSecret] = [env.IDV_API_KEY || undefined, env.IDV_API_SECRET || undefined];
  if ((apiKey === undefined) !== (apiSecret === undefined))
    throw new UsageError("IDV_API_KEY and IDV_API_SECRET go together: set both, or neither");
  return apiKey && apiSecret ? { apiKey, secret: apiSecret } : undefined;
}

function parse(argv: string[], env: NodeJS.ProcessEnv) {
  const { help, values, positionals } = parseFlags(argv, FLAGS);
  if (help) return { help: true as const };
  if (positionals.length > 0) throw new UsageError("idv-sandbox takes no arguments, only flags");
  const auth = values["webhook-auth"];
  const webhookUrl = values["webhook-url"];
  if (auth && !webhookUrl) throw new UsageError("--webhook-auth needs --webhook-url");
  if (values.json && values["print-url"]) throw new UsageError("--json and --print-url go apart: pick one");
  const credentials = credentialsOf(values.key, values.secret, env);
  return {
    help: false as const,
    port: usage(() => parsePort(values.port ?? env.PORT, 4010, "--port")),
    host: values.host ?? "127.0.0.1",
    ...(credentials ? { credentials } : {}),
    ...(webhookUrl ? { webhookUrl: usage(() => receiverUrl(webhookUrl)) } : {}),
    ...(auth ? { webhookAuth: usage(() => parseWebhookAuth(auth)) } : {}),
    ...(values.state ? { stateFile: values.state } : {}),
    first: values.json ? ("json" as const) : values["print-url"] ? ("url" as const) : undefined,
  };
}

const io = { stdout: process.stdout, stderr: process.stderr };
const args = await readCommandLine("idv-sandbox", USAGE, io, () => parse(process.argv.slice(2), process.env));
if (typeof args === "number") process.exit(args);
try {
  const { first, help: _help, ...options } = args;
  const running = await startSandbox({ ...options, log: (line) => console.log(line) });
  // The last save happens on the way out: when it fails, say so and exit 1, never a silent 0. Set
  // before saying where it listens: a signal sent on reading that line finds its handler.
  let saveFailed = false;
  closeOnSignals(
    () =>
      running.close().catch((error: unknown) => {
        saveFailed = true;
        console.error(
          `sandbox: could not save the state: ${(error as NodeJS.ErrnoException)?.code ?? "error"}`,
        );
      }),
    () => (saveFailed ? 1 : 0),
  );
  // Generated credentials are printed once so the developer can use them; given ones are never echoed.
  const generated = running.generated ? running.credentials : undefined;
  if (first === "json") {
    // The server's own pid: started through npx, the pid a shell knows is npm's, whose end leaves this running.
    const line = { url: running.url, control: `${running.url}/_sandbox`, pid: process.pid };
    console.log(
      JSON.stringify(generated ? { ...line, key: generated.apiKey, secret: generated.secret } : line),
    );
  } else if (first === "url") {
    console.log(running.url);
  }
  console.log(`Sandbox listening on ${running.url} (control API: ${running.url}/_sandbox)`);
  if (generated) console.log(`API key: ${generated.apiKey}\nSecret:  ${generated.secret}`);
  if (options.webhookUrl) console.log("Webhook receiver registered for biometric and EDD events.");
  if (options.stateFile) console.log("State is kept in the --state file.");
} catch (error) {
  if (error instanceof StateFileError) {
    console.error(`sandbox: ${error.message}`);
    process.exit(2);
  }
  const inUse = reportStartError(
    error,
    "sandbox: could not start: ",
    "the port is in use; pick another with --port",
  );
  process.exit(inUse ? 1 : 2);
}
