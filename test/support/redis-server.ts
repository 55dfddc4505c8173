// A redis-server of the tests' own: 127.0.0.1 on a free port, nothing saved to disk, stopped by
// the tests (and killed on exit should a test file end early). Clients made here use the options
// docs/webhooks.md recommends, so the tests prove the configuration users are told to run.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { createClient } from "redis";

/** A free TCP port on 127.0.0.1 (asked of the kernel, then released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const running = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of running) {
    child.kill("SIGCONT");
    child.kill("SIGKILL");
  }
});

/** A redis-server that can be stopped, started again on the same port, paused and resumed. */
export class TestRedis {
  #child: ChildProcess | undefined;
  readonly #dir = mkdtempSync(join(tmpdir(), "idv-redis-"));

  private constructor(readonly port: number) {}

  /** Start one on a free port; a port taken meanwhile is tried again with another. */
  static async start(): Promise<TestRedis> {
    let lastError: unknown;
    for (let attempt = 0; attempt < 5; attempt++) {
      const redis = new TestRedis(await freePort());
      try {
        await redis.resume();
        return redis;
      } catch (error) {
        lastError = error;
        await redis.stop();
      }
    }
    throw lastError;
  }

  /** Start the server (again) on its port; resolves once it accepts connections. */
  async resume(): Promise<void> {
    if (this.#child) return;
    // Debian's package puts the binary in /usr/bin; PATH finds it elsewhere.
    const child = spawn(
      "redis-server",
      [
        "--port",
        String(this.port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        this.#dir,
        "--enable-debug-command",
        "local",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    this.#child = child;
    running.add(child);
    let output = "";
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString("utf8");
        if (output.includes("Ready to accept connections")) {
          child.stdout!.off("data", onData);
          child.stdout!.resume();
          resolve();
        }
      };
      child.stdout!.on("data", onData);
      child.stderr!.resume();
      child.once("error", reject);
      child.once("exit", (code) =>
        reject(new Error(`redis-server exited (${code}) before it was ready:\n${output.slice(-2000)}`)),
      );
    });
    child.once("exit", () => running.delete(child));
  }

  /** Stop the server (SIGTERM; nothing to save) and wait for it to exit. */
  async stop(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    if (!child) return;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGCONT");
      child.kill("SIGTERM");
      await exited;
    }
    running.delete(child);
  }

  /** Freeze the server (SIGSTOP): alive, connections open, nothing answered. */
  pause(): void {
    this.#child?.kill("SIGSTOP");
  }

  /** Thaw a paused server: it then runs what it was sent meanwhile. */
  unpause(): void {
    this.#child?.kill("SIGCONT");
  }

  /** Stop the server and remove its directory. */
  async close(): Promise<void> {
    await this.stop();
    rmSync(this.#dir, { recursive: true, force: true });
  }
}

/** The two client libraries the store is proven with. */
export const LIBRARIES = ["node-redis", "ioredis"] as const;
export type Library = (typeof LIBRARIES)[number];

/** How long the tests let a command wait (short, so that a stopped Redis costs little time). */
export const TEST_TIMEOUT_MS = 400;

/** A connected client of `library`, configured as docs/webhooks.md says (shorter timeouts); `close` ends it. */
export async function connectClient(
  library: Library,
  port: number,
  options: { libraryDefaults?: boolean } = {},
) {
  if (options.libraryDefaults) {
    // Offline queues on, ioredis resending unanswered commands on reconnect: the late writes the
    // store's two states make harmless.
    if (library === "node-redis") {
      const client = createClient({ socket: { host: "127.0.0.1", port } });
      client.on("error", () => {});
      await client.connect();
      return { client, close: () => client.destroy() };
    }
    const client = new Redis({ host: "127.0.0.1", port, lazyConnect: true });
    client.on("error", () => {});
    await client.connect();
    return { client, close: () => client.disconnect() };
  }
  if (library === "node-redis") {
    const client = createClient({
      socket: {
        host: "127.0.0.1",
        port,
        connectTimeout: TEST_TIMEOUT_MS,
        reconnectStrategy: (retries: number) => Math.min(25 * 2 ** retries, 500),
      },
      // A command sent while disconnected fails at once instead of waiting to run on reconnect.
      disableOfflineQueue: true,
      commandsQueueMaxLength: 1_000,
    });
    client.on("error", () => {}); // reported through the commands that fail
    await client.connect();
    return { client, close: () => client.destroy() };
  }
  const client = new Redis({
    host: "127.0.0.1",
    port,
    lazyConnect: true,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    socketTimeout: 2 * TEST_TIMEOUT_MS,
    connectTimeout: TEST_TIMEOUT_MS,
    retryStrategy: (times: number) => Math.min(25 * 2 ** times, 500),
  });
  client.on("error", () => {});
  await client.connect();
  return { client, close: () => client.disconnect() };
}
