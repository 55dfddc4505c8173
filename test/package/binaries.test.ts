// The single executables (npm run build:binaries) behave as the npm bins: built once, each copied
// alone into an empty folder and run with no node on PATH, they print what the compiled bins print,
// exit as they exit, and the sandbox serves its API, its control API and the docs site.
import {
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../src/index.js";
import { fromRoot } from "../../scripts/lib/paths.js";
import { compileToTemp } from "../support/compiled.js";
import {
  aloneInFolder,
  buildBinaries,
  nodelessEnv,
  nodeOnPath,
  runAsync,
  runToEnd,
  startSandbox,
  stop,
  type Tool,
} from "./support/binaries.js";

const out = mkdtempSync(join(tmpdir(), "idv-binaries-out-"));
let binaries: Record<Tool, string>;
let compiled: { out: string; remove: () => void };
const env = nodelessEnv();
const KEY = "sbx_key_binary_test";
const SECRET = "sbx_secret_binary_test";

/** The npm bin of a tool: the compiled CLI run by this node. */
const npmBin = (tool: Tool): string[] => [
  process.execPath,
  join(compiled.out, tool === "idv-sandbox" ? "sandbox/cli.js" : "conformance/cli.js"),
];

beforeAll(() => {
  binaries = {
    "idv-sandbox": "",
    "idv-conformance": "",
    ...Object.fromEntries(
      Object.entries(buildBinaries(out)).map(([tool, path]) => [tool, aloneInFolder(path)]),
    ),
  } as Record<Tool, string>;
  compiled = compileToTemp("binaries");
  // As npm run build does: the generated validators beside the compiled modules that import them.
  for (const file of readdirSync(fromRoot("generated")).filter((f) => f.endsWith(".js")))
    copyFileSync(fromRoot("generated", file), join(compiled.out, "generated", file));
}, 600_000);

afterAll(() => {
  compiled?.remove();
  rmSync(out, { recursive: true, force: true });
});

describe("the single executables", () => {
  it("run where no node is on PATH, each at most 150 MB, listed in SHA256SUMS", () => {
    expect(nodeOnPath(env)).toBe(false);
    for (const binary of Object.values(binaries)) {
      expect(statSync(binary).size).toBeLessThanOrEqual(150 * 1024 * 1024);
      expect(readdirSync(join(binary, ".."))).toHaveLength(1);
    }
    const sums = readFileSync(join(out, "SHA256SUMS"), "utf8");
    expect(sums).toMatch(
      /^[0-9a-f]{64} {2}idv-sandbox-linux-x64\n[0-9a-f]{64} {2}idv-conformance-linux-x64\n$/,
    );
    expect(runToEnd("/usr/bin/sha256sum", ["-c", "SHA256SUMS"], { PATH: "" }, out).code).toBe(0);
  });

  for (const tool of ["idv-sandbox", "idv-conformance"] as const) {
    for (const args of [["--help"], ["-h"], ["--version"], ["--no-such-flag"], []]) {
      it(`${tool} ${args.join(" ")}: the npm bin's output and exit code`, () => {
        // The sandbox with no flags would serve: a bad port stops it before it listens, in both.
        const line = tool === "idv-sandbox" && args.length === 0 ? ["--port", "x"] : args;
        const [node, script] = npmBin(tool);
        const expected = runToEnd(node!, [script!, ...line], env);
        const got = runToEnd(binaries[tool], line, env);
        expect(got).toEqual(expected);
      });
    }
  }
});

describe("idv-sandbox-linux-x64", () => {
  it("serves a signed request, the control API and the docs site, and keeps the npm bin's state file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "idv-binary-state-"));
    const states: Record<string, unknown> = {};
    for (const [name, command] of [
      ["npm", npmBin("idv-sandbox")],
      ["binary", [binaries["idv-sandbox"]]],
    ] as const) {
      const state = join(dir, `${name}.json`);
      const [cmd, ...pre] = command;
      const args = [...pre, "--port", "0", "--key", KEY, "--secret", SECRET, "--state", state];
      const sandbox = await startSandbox(cmd!, args, env);
      const { url } = sandbox.first;
      const client = createClient({ baseUrl: url, apiKey: KEY, secret: SECRET, retry: false });
      const pep = { reference: "r-1", firstname: "A", lastname: "B", date_of_birth: "14/03/1985" };
      const created = await client.POST("/api/v4/pep_checks", { body: pep });
      expect(created.response.status).toBeLessThan(300);
      expect((await fetch(`${url}/_sandbox/clock`)).status).toBe(200);
      if (name === "binary") {
        const docs = await fetch(`${url}/docs/`);
        expect(docs.status).toBe(200);
        expect(docs.headers.get("content-type")).toBe("text/html; charset=utf-8");
        expect(await docs.text()).toContain("<html");
        expect((await fetch(`${url}/docs/no-such-page.html`)).status).toBe(404);
      }
      expect(await stop(sandbox.child)).toBe(0);
      // The state file: a header line, then the state.
      states[name] = readFileSync(state, "utf8")
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line));
    }
    // The same members throughout; values (ids, times) differ from run to run.
    expect(shape(states.binary)).toEqual(shape(states.npm));
    // The executable takes up the state file the npm bin wrote.
    const reopened = await startSandbox(
      binaries["idv-sandbox"],
      ["--port", "0", "--key", KEY, "--secret", SECRET, "--state", join(dir, "npm.json")],
      env,
    );
    expect(await stop(reopened.child)).toBe(0);
    expect(reopened.output()).toContain("State is kept in the --state file.");
    rmSync(dir, { recursive: true, force: true });
  });
});

describe("idv-sandbox-linux-x64 deliveries", () => {
  it("delivers a triggered event to a receiver from its delivery thread (a worker script among its assets)", async () => {
    const receiver = await tinyReceiver("t0ken");
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const args = ["--port", "0", "--key", KEY, "--secret", SECRET, "--webhook-url", hook];
    const sandbox = await startSandbox(
      binaries["idv-sandbox"],
      [...args, "--webhook-auth", "bearer:t0ken"],
      env,
    );
    try {
      const { url } = sandbox.first;
      const trigger = await runAsync(binaries["idv-sandbox"], ["trigger", "created", "--url", url], env);
      expect(trigger.code).toBe(0);
      // Delivered from the other thread: asked until it says so, before a deadline that fails the test.
      let status: unknown;
      for (const deadline = Date.now() + 20_000; status !== "delivered" && Date.now() < deadline;) {
        const listed = (await (await fetch(`${url}/_sandbox/deliveries`)).json()) as {
          deliveries: { status: string }[];
        };
        status = listed.deliveries[0]?.status;
        if (status !== "delivered") await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).toBe("delivered");
    } finally {
      expect(await stop(sandbox.child)).toBe(0);
      receiver.close();
    }
  });
});

/** The members of a JSON value, recursively, without their values. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, shape((value as Record<string, unknown>)[k])]),
    );
  return typeof value;
}

describe("idv-conformance-linux-x64", () => {
  it("checks a recording as the npm bin does: same output, same exit code", () => {
    const [node, script] = npmBin("idv-conformance");
    for (const file of ["conforming.har", "truncated.har"]) {
      const recording = fromRoot("test/conformance/fixtures", file);
      const expected = runToEnd(node!, [script!, "check", recording], env);
      expect(runToEnd(binaries["idv-conformance"], ["check", recording], env)).toEqual(expected);
    }
    const junk = join(mkdtempSync(join(tmpdir(), "idv-junk-")), "junk.har");
    writeFileSync(junk, "{not json");
    expect(runToEnd(binaries["idv-conformance"], ["check", junk], env)).toEqual(
      runToEnd(node!, [script!, "check", junk], env),
    );
  });

  it("leaves nothing in the temporary directory: no compile cache of Node's beside its own code cache", () => {
    const tmp = mkdtempSync(join(tmpdir(), "idv-binary-tmp-"));
    const recording = fromRoot("test/conformance/fixtures", "conforming.har");
    expect(runToEnd(binaries["idv-conformance"], ["check", recording], { ...env, TMPDIR: tmp }).code).toBe(0);
    expect(readdirSync(tmp)).toEqual([]);
    rmSync(tmp, { recursive: true, force: true });
  });

  it("checks files in worker threads (--jobs 2) as the npm bin does", async () => {
    const [node, script] = npmBin("idv-conformance");
    const files = ["conforming.har", "truncated.har"].map((f) => fromRoot("test/conformance/fixtures", f));
    const args = ["check", "--jobs", "2", ...files];
    const expected = await runAsync(node!, [script!, ...args], env);
    expect(await runAsync(binaries["idv-conformance"], args, env)).toEqual(expected);
  });

  it(
    "runs the receiver battery as the npm bin does against a tiny receiver",
    { timeout: 120_000 },
    async () => {
      const receiver = await tinyReceiver("t0ken");
      try {
        const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
        const args = ["receiver", url, "--auth", "bearer:t0ken"];
        const [node, script] = npmBin("idv-conformance");
        const expected = await runAsync(node!, [script!, ...args], env);
        const got = await runAsync(binaries["idv-conformance"], args, env);
        expect(got.code).toBe(expected.code);
        // The latency columns are measured, so they differ from run to run.
        expect(withoutTimes(got.stdout)).toBe(withoutTimes(expected.stdout));
        expect(got.stderr).toBe(expected.stderr);
      } finally {
        receiver.close();
      }
    },
  );
});

/** The report with its measured milliseconds masked. */
const withoutTimes = (text: string): string => text.replace(/ +\d+\.\d\b/g, " t");

/** A receiver that checks a bearer token and that the body is JSON (of at most 1 MiB), and answers 200. */
function tinyReceiver(token: string): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= 1 << 20) chunks.push(chunk);
    });
    req.on("end", () => {
      if (req.headers.authorization !== `Bearer ${token}`) return void res.writeHead(401).end();
      if (size > 1 << 20) return void res.writeHead(413).end();
      try {
        JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        return void res.writeHead(400).end();
      }
      res.writeHead(200).end();
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}
