// The last step of `npm start`: serve the stateful sandbox and the docs site together, and say where.
// SANDBOX_PORT (default 4010) and DOCS_PORT (default 8080) move them; the site is read from
// build/docs under the directory npm runs scripts in (DOCS_DIR moves it). Started with `exec node`,
// this process is the one npm's signal reaches: SIGINT or SIGTERM closes both servers, then it exits.
import { resolve } from "node:path";
import { closeOnSignals, parsePort, startFailed } from "../src/server/index.js";
import { listen } from "../src/server/static-files.js";
import { launchSandbox } from "./start.js";

/** The host both servers listen on (launchSandbox's default, and the docs server's). */
const HOST = "127.0.0.1";

/**
 * Listen with `start`; a port in use is one line with the port, the host and the variable that
 * moves it, then exit 2, as idv-sandbox exits when it cannot start.
 */
async function listening<T>(
  start: () => Promise<T>,
  port: number,
  variable: string,
  what: string,
): Promise<T> {
  try {
    return await start();
  } catch (error) {
    process.exit(
      startFailed(error, "npm start: could not serve: ", {
        host: HOST,
        port,
        what,
        move: `set ${variable} to another port (${variable}=0 picks a free one)`,
      }),
    );
  }
}

try {
  const sandboxPort = parsePort(process.env.SANDBOX_PORT, 4010, "SANDBOX_PORT");
  const docsPort = parsePort(process.env.DOCS_PORT, 8080, "DOCS_PORT");
  const sandbox = await listening(
    () => launchSandbox({ port: sandboxPort, host: HOST, log: (line) => console.log(`sandbox: ${line}`) }),
    sandboxPort,
    "SANDBOX_PORT",
    "sandbox",
  );
  const docsDir = resolve(process.env.DOCS_DIR ?? "build/docs");
  const docs = await listening(
    () =>
      listen(docsDir, docsPort).catch(async (error: unknown) => {
        await sandbox.close();
        throw error;
      }),
    docsPort,
    "DOCS_PORT",
    "docs site",
  );
  // Before saying where they listen: a signal sent on reading that finds its handler.
  closeOnSignals(() => Promise.all([sandbox.close(), docs.close()]));
  console.log(
    [
      "",
      `Sandbox:   ${sandbox.url} (control API: ${sandbox.url}/_sandbox)`,
      `  API key: ${sandbox.credentials.apiKey}`,
      `  Secret:  ${sandbox.credentials.secret}`,
      `Docs site: ${docs.url}`,
      "",
      "Ctrl+C stops both.",
    ].join("\n"),
  );
} catch (error) {
  // A port variable that is no port: one line, exit 2, as a refused flag.
  console.error(`npm start: ${String((error as Error)?.message ?? error)}`);
  process.exit(2);
}
