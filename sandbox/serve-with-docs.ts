// The last step of `npm start`: serve the stateful sandbox and the docs site together, and say where.
// SANDBOX_PORT (default 4010) and DOCS_PORT (default 8080) move them; the site is read from
// build/docs under the directory npm runs scripts in (DOCS_DIR moves it). Started with `exec node`,
// this process is the one npm's signal reaches: SIGINT or SIGTERM closes both servers, then it exits.
import { resolve } from "node:path";
import { closeOnSignals, parsePort, reportStartError } from "../src/server/index.js";
import { listen } from "../src/server/static-files.js";
import { launchSandbox } from "./start.js";

/** Listen with `start`; a port in use is said with the port and the variable that moves it, then exit 1. */
async function listening<T>(
  start: () => Promise<T>,
  port: number,
  variable: string,
  what: string,
): Promise<T> {
  try {
    return await start();
  } catch (error) {
    reportStartError(
      error,
      "npm start: could not serve: ",
      `port ${port} (the ${what}) is in use; set ${variable} to another port (${variable}=0 picks a free one)`,
    );
    process.exit(1);
  }
}

try {
  const sandboxPort = parsePort(process.env.SANDBOX_PORT, 4010, "SANDBOX_PORT");
  const docsPort = parsePort(process.env.DOCS_PORT, 8080, "DOCS_PORT");
  const sandbox = await listening(
    () => launchSandbox({ port: sandboxPort, log: (line) => console.log(`sandbox: ${line}`) }),
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
  reportStartError(error, "npm start: could not serve: ", "a port is in use; set SANDBOX_PORT or DOCS_PORT");
  process.exit(1);
}
