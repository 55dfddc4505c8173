// The last step of `npm start`: serve the stateful sandbox and the docs site together, and say where.
// SANDBOX_PORT (default 4010) and DOCS_PORT (default 8080) move them; the site is read from
// build/docs under the directory npm runs scripts in (DOCS_DIR moves it). Started with `exec node`,
// this process is the one npm's signal reaches: SIGINT or SIGTERM closes both servers, then it exits.
import { resolve } from "node:path";
import { closeOnSignals, parsePort, reportStartError } from "../src/server/index.js";
import { listen } from "../src/server/static-files.js";
import { launchSandbox } from "./start.js";

try {
  const sandbox = await launchSandbox({
    port: parsePort(process.env.SANDBOX_PORT, 4010, "SANDBOX_PORT"),
    log: (line) => console.log(`sandbox: ${line}`),
  });
  const docsDir = resolve(process.env.DOCS_DIR ?? "build/docs");
  const docs = await listen(docsDir, parsePort(process.env.DOCS_PORT, 8080, "DOCS_PORT"));
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
