// The last step of `npm start`: serve the contract mock and the docs site together, and say where.
// MOCK_PORT (default 4010) and DOCS_PORT (default 8080) move them.
import { startMock } from "../mock/server.js";
import { DEFAULT_BUILD } from "./docs/build-site.js";
import { listen } from "./docs/static-server.js";
import { parsePort } from "./lib/port.js";

try {
  const mock = await startMock({
    port: parsePort(process.env.MOCK_PORT, 4010, "MOCK_PORT"),
    log: (line) => console.log(`mock: ${line}`),
  });
  const docs = await listen(DEFAULT_BUILD.outDir, parsePort(process.env.DOCS_PORT, 8080, "DOCS_PORT"));
  console.log(`\nContract mock: ${mock.url}\nDocs site:     ${docs.url}\n\nCtrl+C stops both.`);
  const stop = () => void Promise.all([mock.close(), docs.close()]).then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
} catch (error) {
  const code = (error as NodeJS.ErrnoException)?.code;
  const reason =
    code === "EADDRINUSE" ? "a port is in use; set MOCK_PORT or DOCS_PORT" : (error as Error).message;
  console.error(`npm start: could not serve: ${reason}`);
  process.exit(1);
}
