// The one place that starts the programs in the tests: the sources by default; with
// IDV_TEST_BINARIES, each executable alone in an empty folder, with no node on PATH.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";

const made: string[] = [];
afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh folder, removed after the test. */
function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), "idv-cli-command-"));
  made.push(dir);
  return dir;
}

/** The helper as a test file sees it with IDV_TEST_BINARIES set to `dir` (or unset). */
async function load(dir?: string) {
  vi.resetModules();
  vi.stubEnv("IDV_TEST_BINARIES", dir ?? "");
  return import("./cli-command.js");
}

describe("cliLaunch", () => {
  it("by default runs the sources with this node, in the environment given", async () => {
    const { cliLaunch, TEST_BINARIES } = await load();
    expect(TEST_BINARIES).toBeUndefined();
    const env = { PATH: "/usr/bin", NODE_OPTIONS: "--no-warnings" };
    const run = cliLaunch("idv-conformance", ["check", "x.har"], env);
    expect(run.command).toBe(process.execPath);
    expect(run.args.slice(-3)).toEqual([fromRoot("conformance/cli.ts"), "check", "x.har"]);
    expect(run.env).toBe(env);
  });

  it("with IDV_TEST_BINARIES runs the executable alone in a folder, with no node on PATH nor NODE_OPTIONS", async () => {
    const dir = folder();
    for (const tool of ["idv-sandbox", "idv-conformance"]) writeFileSync(join(dir, `${tool}-linux-x64`), "");
    const withNode = join(folder(), "bin");
    mkdirSync(withNode);
    writeFileSync(join(withNode, "node"), "");
    chmodSync(join(withNode, "node"), 0o755);
    const without = folder();
    const { cliLaunch } = await load(dir);
    const env = {
      PATH: [withNode, without].join(delimiter),
      NODE_OPTIONS: "--max-old-space-size=64",
      A: "1",
    };
    const run = cliLaunch("idv-sandbox", ["--help"], env);
    expect(run.args).toEqual(["--help"]);
    expect(readdirSync(dirname(run.command))).toEqual(["idv-sandbox-linux-x64"]);
    expect(dirname(dirname(run.command))).toBe(dir);
    expect(run.env).toEqual({ PATH: without, A: "1" });
    // One copy per test file and program.
    expect(cliLaunch("idv-sandbox", [], env).command).toBe(run.command);
    expect(cliLaunch("idv-conformance", [], env).command).not.toBe(run.command);
  });

  it("says which executable a folder lacks", async () => {
    const { cliLaunch } = await load(folder());
    expect(() => cliLaunch("idv-conformance", [])).toThrow(/no idv-conformance-linux-x64 in /);
  });
});
