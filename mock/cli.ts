// npm run mock [-- --port N]: serve the contract mock on 127.0.0.1 (--port, PORT, or 4010).
import { parsePort, portFlag } from "../scripts/lib/port.js";
import { startMock } from "./server.js";

try {
  const port = parsePort(portFlag(process.argv.slice(2)) ?? process.env.PORT, 4010);
  const mock = await startMock({ port, log: (line) => console.log(line) });
  console.log(`Contract mock listening on ${mock.url}`);
  const stop = () => mock.close().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
} catch (error) {
  const code = (error as NodeJS.ErrnoException)?.code;
  const reason =
    code === "EADDRINUSE" ? "the port is in use; pick another with --port or PORT" : (error as Error).message;
  console.error(`mock: could not start: ${reason}`);
  process.exit(code === "EADDRINUSE" ? 1 : 2);
}
