// Packs the package, installs the tarball into a fresh project and uses it as an integrator would.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { createHmac } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";
import { QUIET_ENV } from "../../scripts/lib/run-tool.js";
import {
  freshProject,
  linkFromRepository,
  packPackage,
  projectTsc,
  writeTsconfig,
} from "./support/packed-package.js";

const dir = mkdtempSync(join(tmpdir(), "idv-pack-"));
const app = join(dir, "app");
const integrator = join(dir, "integrator");
let packedFiles: string[] = [];
let stagedReadmeAfterPack = "";
const manifest = JSON.parse(readFileSync(fromRoot("package.json"), "utf8"));
let tarballBytes = 0;
/** The version the repository pins for a development dependency (exact, as every pin here). */
const devVersion = (name: string): string => manifest.devDependencies[name];
/** The README's receiver (its `<!-- receiver -->` block), as an integrator copies it. */
function readmeReceiver(): string {
  const readme = readFileSync(fromRoot("README.md"), "utf8");
  const block = /<!-- receiver -->\n```ts\n([\s\S]*?)\n```/.exec(readme)?.[1];
  if (!block) throw new Error("README.md has no <!-- receiver --> block");
  return `${block}\n`;
}
/** The TypeScript blocks of the package's README as packed (the one its users read). */
function readmeSnippets(): string[] {
  const readme = readFileSync(join(app, "node_modules/idv-contract/README.md"), "utf8");
  return [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map(([, code]) => code ?? "");
}

beforeAll(() => {
  const packed = packPackage(dir);
  packedFiles = packed.files;
  stagedReadmeAfterPack = packed.stagedReadmeAfterPack;
  tarballBytes = statSync(packed.tarball).size;
  freshProject(app, "consumer", [packed.tarball]);
  // An integrator's repository: the package and, from the registry only, its test runner, Prism and
  // msw (the optional peer the README's MSW block installs).
  freshProject(integrator, "integrator", [
    packed.tarball,
    `vitest@${devVersion("vitest")}`,
    `@stoplight/prism-cli@${devVersion("@stoplight/prism-cli")}`,
    `msw@${devVersion("msw")}`,
  ]);
  mkdirSync(join(integrator, "test"));
  for (const file of ["vitest.config.ts", "global-setup.ts", "flow.test.ts"])
    copyFileSync(
      fromRoot("test/package/fixtures/integration", `${file}.txt`),
      join(integrator, "test", file),
    );
  writeFileSync(join(integrator, "test", "receiver.ts"), readmeReceiver());
  // The packed README's TypeScript, one file per block, as an integrator pastes it into a strict project.
  mkdirSync(join(integrator, "readme"));
  // A block that starts with `// name.ts` is that file (the vitest setup and test); the others are numbered.
  readmeSnippets().forEach((code, i) => {
    const named = /^\/\/ ([\w.-]+\.ts)\b/.exec(code)?.[1];
    writeFileSync(join(integrator, "readme", named ?? `snippet-${i + 1}.ts`), code);
  });
  // The configuration the README's setup block names in its first line.
  writeFileSync(
    join(integrator, "readme", "vitest.config.mjs"),
    'export default { test: { globalSetup: ["./global-setup.ts"], include: ["*.test.ts"] } };\n',
  );
  writeTsconfig(join(integrator, "readme"), {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    lib: ["ES2022"],
    types: ["node"],
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    noEmit: true,
    skipLibCheck: true,
  });
  linkFromRepository(integrator, ["@types/node"]);
  // Node's types for the consumer that takes the fetch API's types from Node.js's rather than from the DOM library.
  linkFromRepository(app, ["typescript", "@types/node", "undici-types"]);
  writeTsconfig(app, {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    lib: ["ES2022", "DOM"],
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    types: [],
  });
  // The TypeScript fixtures are .txt here so that the repository's own type check leaves them alone.
  // The same checks of two entry points under other settings, each in a folder of its own.
  const settings = {
    node10: { module: "ES2022", moduleResolution: "node10", lib: ["ES2022", "DOM"], types: [] },
    "node-types": { module: "NodeNext", moduleResolution: "NodeNext", lib: ["ES2022"], types: ["node"] },
    "no-fetch-types": { module: "NodeNext", moduleResolution: "NodeNext", lib: ["ES2022"], types: [] },
  };
  for (const [name, options] of Object.entries(settings)) {
    mkdirSync(join(app, name));
    copyFileSync(fromRoot("test/package/fixtures/types-only.ts.txt"), join(app, name, "types-only.ts"));
    writeTsconfig(join(app, name), {
      target: "ES2022",
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      ...options,
    });
  }
  for (const file of ["consumer.ts", "mistakes.ts", "run-consumer.mjs"]) {
    const source = fromRoot("test/package/fixtures", file.endsWith(".ts") ? `${file}.txt` : file);
    copyFileSync(source, join(app, file));
  }
}, 240_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** tsc's output for a project of the consumer (its folder, default the main one). */
const tscOutput = (project = "."): string => projectTsc(app, ["-p", project, "--pretty", "false"]).stdout;

/** tsc's errors in the consumer project, as "file:line". */
function compileErrors(): string[] {
  return [...tscOutput().matchAll(/^([\w.-]+)\((\d+),\d+\): error/gm)].map(
    ([, file, line]) => `${file}:${line}`,
  );
}

/** The integrator's vitest on one folder of its repository, as its CI runs it. */
const integratorVitest = (root: string) =>
  spawnSync("npx", ["--no-install", "vitest", "run", "--root", root], {
    cwd: integrator,
    env: { ...QUIET_ENV, CI: "1" },
    encoding: "utf8",
    timeout: 120_000,
  });

describe("the packed package in a fresh strict project", () => {
  it("holds the built runtime, its types and the contracts, and nothing of the repository's own", () => {
    for (const file of [
      "dist/src/index.js",
      "dist/src/index.d.ts",
      "dist/generated/operations.js",
      // Build-time data the conformance suite reads beside its code: validators, coverage index.
      "dist/generated/conformance-validators.js",
      "dist/generated/coverage-index.js",
      "generated/openapi.json",
      "generated/manifest.json",
      "package.json",
    ]) {
      expect(packedFiles).toContain(file);
    }
    expect(packedFiles.filter((f) => /^(test|bench|scripts|openapi|src)\//.test(f))).toEqual([]);
    // The generated sources are compiled into dist/: shipping them too would only double the size.
    expect(packedFiles.filter((f) => /^generated\/.*\.(ts|js)$/.test(f))).toEqual([]);
  });

  it("type-checks the consumer's calls, and rejects exactly the four marked mistakes", () => {
    const mistakes = readFileSync(fromRoot("test/package/fixtures/mistakes.ts.txt"), "utf8")
      .split("\n")
      .flatMap((line, i) => (line.includes("// error:") ? [`mistakes.ts:${i + 1}`] : []));
    expect(mistakes).toHaveLength(4);
    expect(compileErrors().sort()).toEqual(mistakes.sort());
  });

  it("sends the documented headers and signature from plain Node.js", () => {
    const out = JSON.parse(
      execFileSync(process.execPath, ["run-consumer.mjs"], { cwd: app, encoding: "utf8" }),
    );
    const [v2, v4, pdf] = out.sent;
    expect(v2.headers).toMatchObject({ "svc-api-key": "key-1", "svc-secret": "secret-1" });
    expect(v2.headers["svc-signature"]).toBeUndefined();
    expect(v4.headers["svc-secret"]).toBeUndefined();
    const sign = (date: string, body: string) =>
      createHmac("sha256", "secret-1")
        .update(date + body)
        .digest("hex");
    expect(v4.headers["svc-signature"]).toBe(sign(v4.headers["svc-date"], v4.body));
    expect(pdf.headers["svc-signature"]).toBe(sign(pdf.headers["svc-date"], ""));
    expect(out.file).toEqual({ name: "kyb-3.pdf", size: 4 });
    expect(out.openapi).toBe("3.1.0");
  });
});

describe("the Arazzo workflows in the package", () => {
  it("ship as idv-contract/arazzo/…, their source descriptions resolving beside them", () => {
    const names = readdirSync(fromRoot("arazzo")).filter((f) => f.endsWith(".arazzo.yaml"));
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) {
      const resolved = execFileSync(
        process.execPath,
        ["--input-type=module", "-e", `console.log(import.meta.resolve("idv-contract/arazzo/${name}"))`],
        { cwd: app, encoding: "utf8" },
      ).trim();
      const file = fileURLToPath(resolved);
      expect(file).toBe(join(app, "node_modules/idv-contract/arazzo", name));
      const urls = [...readFileSync(file, "utf8").matchAll(/^\s+url: (\S+)$/gm)].map((m) => m[1]!);
      expect(urls).toContain("../generated/openapi.yaml");
      for (const url of urls) expect(existsSync(resolve(dirname(file), url)), `${name}: ${url}`).toBe(true);
    }
    expect(packedFiles).toContain("arazzo/README.md");
    // The file the EDD upload step sends ($file(...)), beside the workflows.
    expect(packedFiles).toContain("arazzo/kowhai-family-trust-deed.pdf");
  });
});

describe("the receiver test vectors in the package", () => {
  it("ship as idv-contract/vectors/receiver.json with their schema, as committed", () => {
    for (const name of ["receiver.json", "receiver.schema.json"]) {
      const resolved = execFileSync(
        process.execPath,
        ["--input-type=module", "-e", `console.log(import.meta.resolve("idv-contract/vectors/${name}"))`],
        { cwd: app, encoding: "utf8" },
      ).trim();
      expect(readFileSync(fileURLToPath(resolved), "utf8")).toBe(
        readFileSync(fromRoot("vectors", name), "utf8"),
      );
    }
  });
});

describe("what the package's users read", () => {
  const packageReadme = readFileSync(fromRoot("docs/package/README.md"), "utf8")
    .replace(/^<!--[\s\S]*?-->\s*/, "")
    .trimStart();
  const packed = () => readFileSync(join(app, "node_modules/idv-contract/README.md"), "utf8");

  it("is the package's README, not the repository's", () => {
    expect(packedFiles).toContain("README.md");
    expect(packed()).toBe(packageReadme);
    for (const topic of [
      "npm install idv-contract",
      "createClient",
      "idv-contract/webhooks",
      "npx idv-conformance",
      "npx idv-sandbox",
      'from "idv-contract/sandbox"',
    ]) {
      expect(packed()).toContain(topic);
    }
    // Nothing that only the repository has: its npm scripts, or links into files the package lacks.
    expect(packed()).not.toMatch(/npm start|npm run mock|\]\((?!https:)[^)]*\)/);
  });

  it("has TypeScript that compiles as written in a strict project (exactOptionalPropertyTypes, noUncheckedIndexedAccess)", () => {
    expect(readmeSnippets().length).toBeGreaterThanOrEqual(6);
    const run = spawnSync(
      process.execPath,
      [fromRoot("node_modules/typescript/bin/tsc"), "-p", join(integrator, "readme"), "--pretty", "false"],
      { encoding: "utf8" },
    );
    expect(run.stdout + run.stderr).toBe("");
    expect(run.status).toBe(0);
  });

  it("has a vitest setup and test that pass against the sandbox, as written", () => {
    const run = integratorVitest("readme");
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/1 passed/);
  }, 150_000);

  it("runs only the package's own commands, or says first what to install", () => {
    const bins = Object.keys(manifest.bin);
    const npx = [...packed().matchAll(/\bnpx ([^\s`]+)/g)].map(([, name]) => name ?? "");
    expect(npx).toEqual(expect.arrayContaining(bins));
    for (const name of npx.filter((n) => !bins.includes(n))) {
      const install = packed().indexOf(`npm install --save-dev ${name}\n`);
      expect(install, `npx ${name}`).toBeGreaterThan(-1);
      expect(install, `npx ${name}`).toBeLessThan(packed().indexOf(`npx ${name}`));
    }
  });

  it("says where the source, the home page and the issues are (repository, homepage, bugs)", () => {
    const installed = JSON.parse(readFileSync(join(app, "node_modules/idv-contract/package.json"), "utf8"));
    expect(installed.repository).toEqual({
      type: "git",
      url: expect.stringMatching(/^git\+https:\/\/.+\.git$/),
    });
    expect(installed.homepage).toMatch(/^https:\/\//);
    expect(installed.bugs).toEqual({ url: expect.stringMatching(/^https:\/\/.+\/issues$/) });
  });

  it("leaves the repository's README as it was after packing", () => {
    expect(stagedReadmeAfterPack).toBe(readFileSync(fromRoot("README.md"), "utf8"));
  });

  it("is swapped in by prepack and back by postpack", () => {
    expect(manifest.scripts.prepack).toMatch(/npm run build && tsx scripts\/package-readme\.ts in$/);
    expect(manifest.scripts.postpack).toBe("tsx scripts/package-readme.ts out");
  });
});

describe("the package's types", () => {
  it("resolve idv-contract/webhooks under moduleResolution node10 (typesVersions)", () => {
    expect(tscOutput("node10")).toBe("");
  });

  it("compile with @types/node instead of the DOM library", () => {
    expect(tscOutput("node-types")).toBe("");
  });

  it("need the fetch API's global types and nothing else (as docs/client.md says)", () => {
    // Without the DOM library or @types/node, the only names missing are the fetch API's.
    const missing = new Set(
      [...tscOutput("no-fetch-types").matchAll(/Cannot find name '(\w+)'/g)].map(([, n]) => n),
    );
    const documented = [
      "AbortSignal",
      "Blob",
      "Headers",
      "ReadableStream",
      "Request",
      "RequestInit",
      "Response",
    ];
    expect(missing.size).toBeGreaterThan(0);
    expect([...missing].filter((name) => !documented.includes(name as string))).toEqual([]);
    const other = tscOutput("no-fetch-types")
      .split("\n")
      .filter((line) => / error TS/.test(line) && !/TS2304|TS7017/.test(line));
    expect(other).toEqual([]);
  });
});

/** A port free now (the system's pick), for a tool that cannot be told to pick one itself. */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createNetServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });

/**
 * Start a command of the integrator's project (`npx …`, as an integrator types it); resolves once its
 * output matches `ready` (or it exits), with what it printed and a stop that SIGTERMs it.
 */
async function startInApp(command: string[], ready: RegExp) {
  const child = spawn("npx", ["--no-install", ...command], {
    cwd: integrator,
    env: QUIET_ENV,
    stdio: ["ignore", "pipe", "pipe"],
    // A process group of its own, stopped as a terminal's Ctrl+C or a CI job's end stops one: npx
    // does not pass a signal sent to it alone on to the command it runs.
    detached: true,
  });
  let out = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr.on("data", (c: Buffer) => (out += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const deadline = Date.now() + 60_000;
  while (!ready.test(out) && child.exitCode === null && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  return {
    out: () => out,
    stop: async () => {
      if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, "SIGTERM");
      return exited;
    },
  };
}

describe("the sandbox in an integrator's repository", () => {
  it("ships what the sandbox needs, and no test or benchmark", () => {
    expect(manifest.bin["idv-sandbox"]).toBe("dist/sandbox/cli.js");
    for (const file of [
      "dist/sandbox/cli.js",
      "dist/sandbox/start-sandbox.js",
      "dist/src/server/check-request.js",
    ])
      expect(packedFiles).toContain(file);
    expect(packedFiles.filter((f) => /^(test|bench|dist\/mock)\/|serve-with-docs/.test(f))).toEqual([]);
    // The docs site of this version, which the sandbox serves at /docs/.
    for (const file of ["dist/site/index.html", "dist/site/api.html", "dist/site/guide-sandbox.html"])
      expect(packedFiles).toContain(file);
    // Beside earlier ones (366,065 bytes before the sandbox shipped, 506 kB before the docs site did):
    // printed, not asserted.
    console.log(`tarball: ${tarballBytes} bytes, ${packedFiles.length} files`);
  });

  it("npx idv-sandbox --port 0 --json: a first line a script reads, answering there; SIGTERM exits 0", async () => {
    const sandbox = await startInApp(["idv-sandbox", "--port", "0", "--json"], /listening on/);
    const first = JSON.parse(sandbox.out().split("\n")[0] ?? "");
    const clock = await fetch(`${first.control}/clock`);
    expect(clock.status).toBe(200);
    // The docs site of this very version, and the control API's index at the address it prints.
    const docs = await fetch(`${first.url}/docs/`);
    expect([docs.status, docs.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"]);
    expect(await docs.text()).toContain("<h1>Identity Verification Service</h1>");
    const reference = await fetch(`${first.url}/docs/guide-sandbox.html`);
    expect(reference.status).toBe(200);
    expect(await reference.text()).toContain("The sandbox");
    const api = await fetch(`${first.url}/docs/api.html`);
    expect(api.status).toBe(200);
    expect(await api.text()).toContain("/api/v4/pep_checks");
    const index = await fetch(first.control);
    expect(index.status).toBe(200);
    expect(await index.json()).toMatchObject({
      docs: "/docs/",
      operations: expect.arrayContaining([
        { method: "GET", path: "/_sandbox/clock", summary: "Read the virtual clock" },
      ]),
    });
    const signed = await fetch(`${first.url}/api/v2/send_text`, {
      method: "POST",
      headers: { "svc-api-key": first.key, "svc-secret": first.secret, "content-type": "application/json" },
      body: JSON.stringify({ reference: "r-1" }),
    });
    expect(signed.status).toBe(200);
    // The sandbox closes its port and exits 0; npx, signalled too, ends with it.
    expect([
      { code: 0, signal: null },
      { code: null, signal: "SIGTERM" },
    ]).toContainEqual(await sandbox.stop());
    await expect(fetch(`${first.control}/clock`)).rejects.toThrow();
  }, 90_000);

  it("runs an integrator's vitest suite whose globalSetup calls startSandbox(): the main flow and the review pass", () => {
    const run = integratorVitest("test");
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/2 passed/);
  }, 150_000);

  it("the README's Prism command on the packaged contract answers the contract's examples (the canned mock)", async () => {
    const port = await freePort();
    const line = /^npx (@stoplight\/prism-cli mock .*)$/m.exec(
      readFileSync(join(app, "node_modules/idv-contract/README.md"), "utf8"),
    )?.[1];
    if (!line) throw new Error("the packed README has no `npx @stoplight/prism-cli mock` line");
    // The README's command, on a free port rather than its 4011.
    const command = line.split(" ").map((word) => (word === "4011" ? String(port) : word));
    expect(command).toContain(String(port));
    const prism = await startInApp(command, /listening on/i);
    try {
      const answer = await fetch(`http://127.0.0.1:${port}/api/v4/outsource_cases/1042`, {
        headers: { "svc-api-key": "k", "svc-date": "d", "svc-signature": "s" },
      });
      expect(answer.status, prism.out()).toBe(200);
      expect(await answer.json()).toHaveProperty("metadata");
    } finally {
      await prism.stop();
    }
  }, 90_000);
});
