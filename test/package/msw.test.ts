// idv-contract/msw as an integrator uses it: the packed package and msw installed in a fresh project,
// the main flow through setupServer(...sandboxHandlers(createSandbox())) with the typed client on the
// global fetch, type-checked strictly, and no port opened by the process while it runs.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";
import {
  freshProject,
  linkFromRepository,
  packPackage,
  projectTsc,
  writeTsconfig,
} from "./support/packed-package.js";

const dir = mkdtempSync(join(tmpdir(), "idv-msw-"));
const app = join(dir, "app");
const manifest = JSON.parse(readFileSync(fromRoot("package.json"), "utf8"));
/** Run a compiled file of the consumer with Node; its last line, parsed. */
const run = (file: string) => {
  const out = spawnSync(process.execPath, [join(app, "out", file)], {
    cwd: app,
    encoding: "utf8",
    timeout: 60_000,
  });
  if (out.status !== 0) throw new Error(`${file} exited ${out.status}:\n${out.stdout}${out.stderr}`);
  return JSON.parse(out.stdout.trim().split("\n").at(-1) ?? "null");
};

beforeAll(() => {
  const { tarball } = packPackage(dir);
  // msw at the version the repository pins: the optional peer an integrator installs to use idv-contract/msw.
  freshProject(app, "msw-consumer", [tarball, `msw@${manifest.devDependencies.msw}`]);
  // Node's types (msw may have brought them already) and the compiler, from the repository.
  linkFromRepository(app, ["@types/node", "typescript"]);
  for (const file of ["flow", "ports", "check"])
    copyFileSync(fromRoot("test/package/fixtures/msw", `${file}.ts.txt`), join(app, `${file}.ts`));
  writeTsconfig(app, {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    lib: ["ES2022", "DOM"],
    types: ["node"],
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: true,
    outDir: "out",
  });
}, 300_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("idv-contract/msw in a fresh project", () => {
  it("type-checks and compiles the integrator's test as written", () => {
    const tsc = projectTsc(app, ["-p", "."]);
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.status).toBe(0);
  }, 120_000);

  it("sees a listening port when there is one (the check can fail)", () => {
    const { port, ports } = run("check.js");
    expect(ports).toContain(port);
  });

  it("runs the main flow through setupServer on the global fetch, and no port is opened", () => {
    expect(run("flow.js")).toEqual({
      status: 200,
      events: ["created", "completed", "archived"],
      pdf: "%PDF-",
      refused: 401,
      listening: [],
    });
  }, 60_000);
});
