#!/usr/bin/env node
// idv-sandbox (npx idv-sandbox, npm run sandbox) [--port N --host H --key K --secret S
//   --webhook-url URL --webhook-auth bearer:TOKEN|basic:USER:PASS --state FILE --json | --print-url]:
// serve the stateful sandbox. --port 0 picks a free port; --json makes the first line a JSON object
// (url, control, pid, and the credentials when generated), --print-url makes it the URL alone.
// The command line is read in cli-args.ts. `idv-sandbox trigger EVENT …` makes a running sandbox
// send one event (trigger-cli.ts).
import { readCommandLine } from "../src/cli/args.js";
import { closeOnSignals, startFailed } from "../src/server/index.js";
import { parse, USAGE } from "./cli-args.js";
import { launchSandbox } from "./start.js";
import { StateFileError } from "./state/file.js";
import { StateLockError } from "./state/lock.js";
import { runTrigger } from "./control/trigger-cli.js";

const io = { stdout: process.stdout, stderr: process.stderr };

/**
 * The program. A function, not top-level awaits: the single executable's bundle is CommonJS.
 * Exits itself on every path but a running server, which ends on a signal.
 */
async function main(): Promise<void> {
  if (process.argv[2] === "trigger") process.exit(await runTrigger(process.argv.slice(3), io));
  const args = await readCommandLine("idv-sandbox", USAGE, io, () =>
    parse(process.argv.slice(2), process.env),
  );
  if (typeof args === "number") process.exit(args);
  try {
    const { first, fromEnvironment, help: _help, ...options } = args;
    const running = await launchSandbox({ ...options, log: (line) => console.log(line) });
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
    if (running.sandbox.docsPath)
      console.log(`Docs of this version: ${running.url}${running.sandbox.docsPath}`);
    if (generated) console.log(`API key: ${generated.apiKey}\nSecret:  ${generated.secret}`);
    if (fromEnvironment) console.log("Credentials: IDV_API_KEY and IDV_API_SECRET from the environment.");
    if (options.webhookUrl) console.log("Webhook receiver registered for biometric and EDD events.");
    if (options.stateFile) console.log("State is kept in the --state file.");
  } catch (error) {
    if (error instanceof StateFileError || error instanceof StateLockError) {
      console.error(`sandbox: ${error.message}`);
      process.exit(2);
    }
    // Exit 2 for every start that failed (a port in use, a host it cannot listen on, a state file), as
    // for a refused flag: 1 is kept for a run that ended badly (the last save failed).
    process.exit(
      startFailed(error, "sandbox: could not start: ", {
        host: args.host,
        port: args.port,
        move: "pick another with --port (0 picks a free one)",
      }),
    );
  }
}

// Not awaited at the top: what main does not catch ends the process as an uncaught error would.
void main();
