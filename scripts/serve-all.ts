// The last step of `npm start`: serve the contract mock and the docs site together, and say where.
// MOCK_PORT (default 4010) and DOCS_PORT (default 8080) move them.
import { startMock } from "../mock/server.js";
import { DEFAULT_BUILD } from "./docs/build-site.js";
import { listen } from "../src/server/static-files.js";
import { closeOnSignals, parsePort, reportStartError } from "./lib/port.js";

try {
  const mock = await startMock({
    port: parsePort(process.env.MOCK_PORT, 4010, "MOCK_PORT"),
    log: (line) => console.log(`mock: ${line}`),
  });
  const docs = await listen(DEFAULT_BUILD.outDir, parsePort(process.env.DOCS_PORT, 8080, "DOCS_PORT"));
  console.log(`\nContract mock: ${mock.url}\nDocs site:     ${docs.url}\n\nCtrl+C stops both.`);
  closeOnSignals(() => Promise.all([mock.close(), docs.close()]));
} catch (error) {
  reportStartError(error, "npm start: could not serve: ", "a port is in use; set MOCK_PORT or DOCS_PORT");
  process.exit(1);
}
