// npm run mock [-- --port N]: serve the contract mock on 127.0.0.1 (PORT or 4010).
import { startMock } from "./server.js";

function port(): number {
  const i = process.argv.indexOf("--port");
  const raw = i >= 0 ? process.argv[i + 1] : process.env.PORT;
  const value = Number(raw ?? 4010);
  if (!Number.isInteger(value) || value < 0 || value > 65535) {
    console.error(`idv mock: --port/PORT must be a port number, got "${raw}"`);
    process.exit(2);
  }
  return value;
}

try {
  const mock = await startMock({ port: port(), log: (line) => console.log(line) });
  console.log(`Contract mock listening on ${mock.url}`);
  const stop = () => mock.close().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
} catch (error) {
  console.error(`idv mock: could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
