#!/usr/bin/env node
// idv-sandbox (npx idv-sandbox, npm run sandbox) [--port N --host H --key K --secret S
//   --webhook-url URL --webhook-auth bearer:TOKEN|basic:USER:PASS --state FILE --json | --print-url]:
// serve the stateful sandbox. --port 0 picks a free port; --json makes the first line a JSON object
// (url, control, and the credentials when generated), --print-url makes it the URL alone.
import { parseArgs } from "node:util";
import { closeOnSignals, parsePort, reportStartError } from "../src/server/index.js";
import { parseWebhookAuth, startSandbox } from "./start.js";
import { StateFileError } from "./state-file.js";
import { StateLockError } from "./state-lock.js";

const FLAGS = ["port", "host", "key", "secret", "webhook-url", "webhook-auth", "state"] as const;
/** Flags without a value: how the first line is written for a script to read. */
const SWITCHES = ["json", "print-url"] as const;

const USAGE = `Usage: idv-sandbox [options]
Serve the stateful sandbox of the identity-verification service.

  --port N              port to listen on (0: a free one; default PORT or 4010)
  --host H              address to listen on (default 127.0.0.1)
  --key K --secret S    the credentials it accepts (default: generated, printed once)
  --webhook-url URL     register a receiver for biometric and EDD events
  --webhook-auth A      its credentials: bearer:TOKEN or basic:USER:PASS
  --state FILE          keep records, receivers, deliveries and the clock in FILE
  --json                first line: JSON with the url, the control API and generated credentials
  --print-url           first line: the url alone
  -h, --help            print this and exit

The control API is served under /_sandbox. Stop with SIGINT or SIGTERM.`;

try {
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = {
    ...Object.fromEntries(FLAGS.map((f) => [f, { type: "string" as const }])),
    ...Object.fromEntries(SWITCHES.map((f) => [f, { type: "boolean" as const }])),
    help: { type: "boolean", short: "h" },
  };
  const { values } = parseArgs({ args: process.argv.slice(2), options, strict: true });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const flag = (name: (typeof FLAGS)[number]): string | undefined => {
    const v = values[name];
    if (typeof v !== "string") return undefined;
    if (v === "" || v.startsWith("--")) throw new Error(`--${name} needs a value`);
    return v;
  };
  const key = flag("key");
  const secret = flag("secret");
  if ((key === undefined) !== (secret === undefined)) throw new Error("--key and --secret go together");
  const auth = flag("webhook-auth");
  const webhookUrl = flag("webhook-url");
  if (auth && !webhookUrl) throw new Error("--webhook-auth needs --webhook-url");
  const stateFile = flag("state");
  if (values.json && values["print-url"]) throw new Error("--json and --print-url go apart: pick one");
  const running = await startSandbox({
    port: parsePort(flag("port") ?? process.env.PORT, 4010, "--port"),
    host: flag("host") ?? "127.0.0.1",
    ...(key && secret ? { credentials: { apiKey: key, secret } } : {}),
    ...(webhookUrl ? { webhookUrl } : {}),
    ...(auth ? { webhookAuth: parseWebhookAuth(auth) } : {}),
    ...(stateFile ? { stateFile } : {}),
    log: (line) => console.log(line),
  });
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
  if (values.json) {
    const first = { url: running.url, control: `${running.url}/_sandbox` };
    console.log(
      JSON.stringify(generated ? { ...first, key: generated.apiKey, secret: generated.secret } : first),
    );
  } else if (values["print-url"]) {
    console.log(running.url);
  }
  console.log(`Sandbox listening on ${running.url} (control API: ${running.url}/_sandbox)`);
  if (running.sandbox.docsPath)
    console.log(`Docs of this version: ${running.url}${running.sandbox.docsPath}`);
  if (generated) console.log(`API key: ${generated.apiKey}\nSecret:  ${generated.secret}`);
  if (webhookUrl) console.log("Webhook receiver registered for biometric and EDD events.");
  if (stateFile) console.log("State is kept in the --state file.");
} catch (error) {
  if (error instanceof StateFileError || error instanceof StateLockError) {
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
