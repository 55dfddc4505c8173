/**
 * The reference's code samples are code that works: every typed-client sample compiles against the
 * package's types, and every curl sample, run as printed by sh against the contract mock, gets an
 * answer the conformance suite accepts for the request it sent.
 */
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningMock } from "../../mock/server.js";
import { createConformanceChecker, type Exchange, type HeaderMap } from "../../conformance/index.js";
import {
  joinSoftBreaks,
  type OperationSamples,
  operationSamples,
  referenceBundle,
  SAMPLE_LANGS,
  shellQuote,
} from "../../scripts/docs/code-samples.js";
import { fromRoot } from "../../scripts/lib/paths.js";
import { loadOpenApi } from "../support/contract.js";
import { startTestMock, V2 } from "../support/mock.js";
import { CREDENTIALS as SANDBOX_CREDENTIALS, startTestSandbox } from "../support/sandbox.js";

const openapi = loadOpenApi();
const samples = operationSamples(openapi);
/** Under build/ (ignored by git) so that the samples resolve node_modules as a user's project would. */
let work: string;

beforeAll(() => {
  mkdirSync(fromRoot("build"), { recursive: true });
  work = mkdtempSync(fromRoot("build", "code-samples-"));
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("the code samples", () => {
  it("cover every operation of the contract, once per language, in the reference's copy only", () => {
    const operations = Object.values<Record<string, { operationId?: string }>>(openapi.paths).flatMap(
      (item) => Object.values(item).flatMap((op) => (op?.operationId ? [op.operationId] : [])),
    );
    expect(samples.map((s) => s.operationId).sort()).toEqual(operations.sort());
    const bundle = referenceBundle(openapi);
    for (const s of samples) {
      const langs = bundle.paths[s.path][s.method]["x-codeSamples"].map((c: { lang: string }) => c.lang);
      expect(langs, s.operationId).toEqual([SAMPLE_LANGS.curl, SAMPLE_LANGS.typescript]);
      expect(
        openapi.paths[s.path][s.method]["x-codeSamples"],
        "the contract itself is untouched",
      ).toBeUndefined();
    }
    // Redoc's search excerpts drop a bare newline ("developer\ndashboard"); the copy keeps a space before each.
    const glued = (document: unknown): string[] => {
      const found: string[] = [];
      const stack: unknown[] = [document];
      while (stack.length) {
        const node = stack.pop();
        if (!node || typeof node !== "object") continue;
        for (const [key, value] of Object.entries(node)) {
          if (
            key === "description" &&
            typeof value === "string" &&
            /\S\n(?!$|[-*+#>|`\s]|\d+[.)])/.test(value)
          )
            found.push(value);
          else stack.push(value);
        }
      }
      return found;
    };
    expect(glued(openapi).length, "the contract has descriptions with bare newlines").toBeGreaterThan(0);
    expect(glued(bundle)).toEqual([]);
    expect(bundle.servers.map((s: { description?: string }) => s.description).join(" ")).not.toContain("`");
  });

  it("join a paragraph's lines for Redoc's search, keeping lists, fences and hard breaks", () => {
    expect(
      joinSoftBreaks("in the developer\ndashboard.\n\n- one\n  more\n- two\n```\na\nb\n```\nhard  \nbreak"),
    ).toBe("in the developer dashboard.\n\n- one more\n- two\n```\na\nb\n```\nhard  \nbreak");
  });

  it("quote every shell word safely", () => {
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    const echoed = spawnSync("sh", ["-c", `printf '%s' ${shellQuote(`a'b"c$d\`e`)}`], { encoding: "utf8" });
    expect(echoed.stdout).toBe(`a'b"c$d\`e`);
  });

  it("type-check against the package: every TypeScript sample compiles, and a wrong one does not", () => {
    const dir = join(work, "typescript");
    mkdirSync(dir);
    writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
    const files = samples.map((s) => {
      const file = join(dir, `${s.operationId}.ts`);
      writeFileSync(file, s.typescript);
      return file;
    });
    // The control: a misspelt body member must fail, or the check proves nothing.
    const pep = samples.find((s) => s.operationId === "createPepCheck");
    if (!pep) throw new Error("no createPepCheck sample");
    const broken = join(dir, "broken", "broken.ts");
    mkdirSync(join(dir, "broken"));
    writeFileSync(join(dir, "broken", "package.json"), JSON.stringify({ type: "module" }));
    writeFileSync(broken, pep.typescript.replace("firstname:", "first_name:"));
    // One compiler run over all of them (it is the slow part): only the control may have errors.
    const config = join(dir, "tsconfig.json");
    writeFileSync(
      config,
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          lib: ["ES2022", "DOM"],
          types: ["node"],
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          // The package's name, resolved to its entry point as a user's import would be.
          paths: { "idv-contract": [fromRoot("src/index.ts")] },
        },
        files: [...files, broken],
      }),
    );
    const run = spawnSync(fromRoot("node_modules/.bin/tsc"), ["-p", config, "--pretty", "false"], {
      encoding: "utf8",
    });
    const errors = `${run.stdout}${run.stderr}`.split("\n").filter((line) => line.includes("error TS"));
    expect(errors.filter((line) => !line.includes("/broken/broken.ts("))).toEqual([]);
    expect(errors.some((line) => line.includes("/broken/broken.ts(") && line.includes("first_name"))).toBe(
      true,
    );
  });

  const checker = createConformanceChecker();
  const curl = spawnSync("sh", ["-c", "command -v curl"], { encoding: "utf8" }).stdout.trim();

  /** Run a curl sample as printed, with `sh`, against a server; the exchange it made, as recorded. */
  async function runCurlSample(
    sample: OperationSamples,
    where: string,
    baseUrl: string,
    credentials: { apiKey: string; secret: string },
  ): Promise<Exchange> {
    if (!curl) throw new Error("curl is not installed: the curl samples cannot be run");
    const dir = join(work, `curl-${where}-${sample.operationId}`);
    const bin = join(dir, "bin");
    mkdirSync(bin, { recursive: true });
    // A curl of the same name that records what the sample asked for, then runs the real one.
    writeFileSync(
      join(bin, "curl"),
      `#!/bin/sh\nprintf '%s\\0' "$@" > "$CURL_ARGS"\nexec ${shellQuote(curl)} -sS -D "$CURL_HEADERS" "$@"\n`,
    );
    chmodSync(join(bin, "curl"), 0o755);
    if (sample.uploadFile) writeFileSync(join(dir, sample.uploadFile.name), MINIMAL_PDF);
    // Asynchronously: the server answers from this same process.
    const run = await runShell(sample.curl, {
      cwd: dir,
      env: {
        PATH: `${bin}:${process.env.PATH ?? ""}`,
        IDV_BASE_URL: baseUrl.replace(/\/$/, ""),
        IDV_API_KEY: credentials.apiKey,
        IDV_API_SECRET: credentials.secret,
        CURL_ARGS: join(dir, "args"),
        CURL_HEADERS: join(dir, "headers"),
      },
    });
    expect(run.stderr.toString(), "curl's complaints").toBe("");
    expect(run.status).toBe(0);
    const exchange = recordedExchange(dir, run.stdout, sample.downloadFile);
    expect(exchange.request.method).toBe(sample.method.toUpperCase());
    return exchange;
  }

  describe("curl, run against the contract mock", () => {
    let mock: RunningMock;
    beforeAll(async () => {
      mock = await startTestMock();
    });
    afterAll(async () => {
      await mock?.close();
    });

    it.each(samples.map((s) => [s.operationId, s] as const))("%s", async (_id, sample) => {
      const credentials = { apiKey: V2["svc-api-key"], secret: V2["svc-secret"] };
      const exchange = await runCurlSample(sample, "mock", mock.url, credentials);
      const status = exchange.response?.status ?? 0;
      expect(status, `${sample.operationId} answered ${status}`).toBeGreaterThanOrEqual(200);
      expect(status).toBeLessThan(300);
      const result = checker.checkExchange(exchange);
      expect(result.operationId).toBe(sample.operationId);
      expect(result.violations).toEqual([]);
      expect(result.ok).toBe(true);
    });
  });

  // The sandbox checks credentials and v4 signatures as the service does, so it proves the curl
  // samples' openssl signing; it keeps state, so an operation on an example id finds no record.
  describe("curl, run against the sandbox", () => {
    let sandbox: Awaited<ReturnType<typeof startTestSandbox>>;
    beforeAll(async () => {
      sandbox = await startTestSandbox();
    });
    afterAll(async () => {
      await sandbox?.running.close();
    });

    it.each(samples.map((s) => [s.operationId, s] as const))("%s", async (_id, sample) => {
      const exchange = await runCurlSample(sample, "sandbox", sandbox.running.url, SANDBOX_CREDENTIALS);
      const status = exchange.response?.status ?? 0;
      const result = checker.checkExchange(exchange);
      expect(result.operationId).toBe(sample.operationId);
      expect(result.violations).toEqual([]);
      expect(result.ok).toBe(true);
      if (/\{[^}]+\}/.test(sample.path)) {
        expect([200, 404], `${sample.operationId} answered ${status}`).toContain(status);
      } else {
        expect(status, `${sample.operationId} answered ${status}`).toBe(200);
      }
    });
  });
});

/** Run a shell script; its exit status, stdout and stderr. */
function runShell(
  script: string,
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ status: number | null; stdout: Buffer; stderr: Buffer }> {
  return new Promise((resolve, reject) => {
    const child = spawn("sh", ["-c", script], { ...options, stdio: ["ignore", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", reject);
    child.on("close", (status) =>
      resolve({ status, stdout: Buffer.concat(out), stderr: Buffer.concat(err) }),
    );
  });
}

/** A one-page PDF for the upload sample to send. */
const MINIMAL_PDF = "%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n";

/** The request the curl wrapper recorded and the answer it got, as the conformance suite reads them. */
function recordedExchange(dir: string, stdout: Buffer, downloadFile: string | undefined): Exchange {
  const args = readFileSync(join(dir, "args"), "utf8").split("\0").slice(0, -1);
  let method = "GET";
  let url = "";
  const headers: HeaderMap = Object.create(null);
  let body: Buffer | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    const next = (): string => args[++i] ?? "";
    if (arg === "-X") method = next();
    else if (arg === "-H") {
      const header = next();
      const colon = header.indexOf(":");
      headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
    } else if (arg === "--data") body = Buffer.from(next());
    else if (arg === "--data-binary") {
      const value = next();
      body = value.startsWith("@") ? readFileSync(join(dir, value.slice(1))) : Buffer.from(value);
    } else if (arg === "--output") next();
    else if (!arg.startsWith("-")) url = arg;
    else throw new Error(`the curl sample uses ${arg}, which this test does not read`);
  }
  const [statusLine = "", ...headerLines] = readFileSync(join(dir, "headers"), "latin1")
    .trim()
    .split(/\r?\n/);
  const responseHeaders: HeaderMap = Object.create(null);
  for (const line of headerLines) {
    const colon = line.indexOf(":");
    if (colon > 0) responseHeaders[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const responseBody = downloadFile ? readFileSync(join(dir, downloadFile)) : stdout;
  const { pathname } = new URL(url);
  return {
    index: 0,
    request: {
      method,
      path: pathname,
      query: Object.create(null),
      headers,
      ...(body ? { body: { kind: "bytes" as const, bytes: body } } : {}),
    },
    response: {
      status: Number(/^HTTP\/[\d.]+ (\d{3})/.exec(statusLine)?.[1] ?? 0),
      headers: responseHeaders,
      body: { kind: "bytes", bytes: responseBody },
    },
  };
}
