// `npm start`'s last step serves the sandbox and the docs site in one process (`exec`, so npm's
// SIGTERM reaches it), compiled: SIGTERM stops both servers and frees both ports.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { type AddressInfo, connect, createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";
import { compileToTemp } from "../support/compiled.js";

let compiled = "";
let remove = () => {};
beforeAll(() => {
  ({ out: compiled, remove } = compileToTemp("idv-start"));
}, 120_000);
afterAll(() => remove());

/** Whether something accepts connections on the port. */
const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ port, host: "127.0.0.1" });
    socket.once("connect", () => resolve(!!socket.destroy()));
    socket.once("error", () => resolve(false));
  });

describe("npm start", () => {
  it("serves the sandbox and the docs site; SIGTERM stops both", async () => {
    const start: string = JSON.parse(readFileSync(fromRoot("package.json"), "utf8")).scripts.start;
    const serve = start.split(" && ").at(-1) ?? "";
    expect(serve).toMatch(/^exec node dist\//);
    const child = spawn("sh", ["-c", serve.replace("dist/", `${compiled}/`)], {
      cwd: fromRoot(),
      env: { ...process.env, SANDBOX_PORT: "0", DOCS_PORT: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const deadline = Date.now() + 30_000;
    while (!/Ctrl\+C stops both/.test(out) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    const sandboxPort = Number(/Sandbox: +http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1]);
    const docsPort = Number(/Docs site: http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1]);
    expect(sandboxPort).toBeGreaterThan(0);
    expect(docsPort).toBeGreaterThan(0);
    expect((await fetch(`http://127.0.0.1:${sandboxPort}/_sandbox/clock`)).status).toBe(200);
    expect(await listening(docsPort)).toBe(true);
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(await listening(sandboxPort)).toBe(false);
    expect(await listening(docsPort)).toBe(false);
  }, 45_000);

  it.each([
    ["SANDBOX_PORT", "sandbox"],
    ["DOCS_PORT", "docs site"],
  ])(
    "says which port of which host is in use and that %s moves it, exit 2",
    async (variable, what) => {
      const start: string = JSON.parse(readFileSync(fromRoot("package.json"), "utf8")).scripts.start;
      const serve = (start.split(" && ").at(-1) ?? "").replace("dist/", `${compiled}/`);
      const busy = createServer();
      await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
      const port = (busy.address() as AddressInfo).port;
      try {
        const child = spawn("sh", ["-c", serve], {
          cwd: fromRoot(),
          env: { ...process.env, SANDBOX_PORT: "0", DOCS_PORT: "0", [variable]: String(port) },
          stdio: ["ignore", "pipe", "pipe"],
        });
        let err = "";
        child.stderr.on("data", (c: Buffer) => (err += c.toString()));
        const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
        expect(code).toBe(2);
        expect(err).toBe(
          `npm start: could not serve: port ${port} on 127.0.0.1 (the ${what}) is in use; set ${variable} to another port (${variable}=0 picks a free one)\n`,
        );
      } finally {
        await new Promise((resolve) => busy.close(resolve));
      }
    },
    45_000,
  );
});
