/**
 * `npm run docs:serve`: serve build/docs on 127.0.0.1 (--port N, PORT, default 8080), building the
 * site first when it is missing.
 */
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { buildSite, DEFAULT_BUILD } from "./docs/build-site.js";
import { listen, ROUTES_FILE } from "../src/server/static-files.js";
import { closeOnSignals, parsePort, startFailed } from "../src/server/index.js";

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { port: { type: "string" } }, strict: true });
  const port = parsePort(values.port ?? process.env.PORT, 8080);
  // A build from before the 404 page and the reference routes existed is rebuilt too.
  const needed = ["index.html", "api.html", "404.html", ROUTES_FILE];
  if (needed.some((file) => !existsSync(`${DEFAULT_BUILD.outDir}/${file}`))) {
    console.log("docs:serve: build/docs is missing or out of date; building it first");
    await buildSite(DEFAULT_BUILD);
  }
  const { url, close } = await listen(DEFAULT_BUILD.outDir, port).catch((error: unknown) => {
    process.exit(
      startFailed(error, "docs:serve: ", {
        host: "127.0.0.1",
        port,
        move: "pick another with --port or PORT",
      }),
    );
  });
  console.log(`docs:serve: serving build/docs at ${url} (Ctrl+C to stop)`);
  closeOnSignals(close);
}

main().catch((error: unknown) => {
  console.error(`docs:serve: ${String((error as Error)?.message ?? error)}`);
  process.exitCode = 1;
});
