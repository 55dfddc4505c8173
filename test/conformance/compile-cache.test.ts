// The CLI asks Node to keep its compiled code on disk where Node can (22.8 and later), and only there.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type CompileCacheApi, enableCompileCache } from "../../conformance/run/compile-cache.js";
import { fromRoot, ROOT } from "../../scripts/lib/paths.js";
import { example } from "./support/exchanges.js";
import { tempDir, writeNdjson } from "./support/cli.js";

const STATUS = { ENABLED: 1, ALREADY_ENABLED: 2, FAILED: 0, DISABLED: 3 };

/** A node:module stand-in that records the directories it was asked to cache in. */
function fakeApi(status: number): CompileCacheApi & { calls: (string | undefined)[] } {
  const calls: (string | undefined)[] = [];
  return {
    calls,
    enableCompileCache: (directory?: string) => {
      calls.push(directory);
      return { status };
    },
    constants: { compileCacheStatus: STATUS },
  };
}

const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
const nodeHasCompileCache = major > 22 || (major === 22 && minor >= 8);

describe("enableCompileCache", () => {
  it("asks Node once, for its own default directory, and says whether the cache is on", () => {
    const api = fakeApi(STATUS.ENABLED);
    expect(enableCompileCache(api)).toBe(true);
    expect(api.calls).toEqual([undefined]);
    expect(enableCompileCache(fakeApi(STATUS.ALREADY_ENABLED))).toBe(true);
    expect(enableCompileCache(fakeApi(STATUS.DISABLED))).toBe(false);
    expect(enableCompileCache(fakeApi(STATUS.FAILED))).toBe(false);
  });

  it("does nothing on a Node without a compile cache", () => {
    expect(enableCompileCache({})).toBe(false);
  });

  it("leaves Node's compile cache off in a single executable (its script has V8's code cache)", () => {
    const api = fakeApi(STATUS.ENABLED);
    expect(enableCompileCache(api, true)).toBe(false);
    expect(api.calls).toEqual([]);
    expect(enableCompileCache(api, false)).toBe(true);
  });

  it("is turned on by the CLI under the temporary directory where Node has one, and left alone where not", () => {
    const dir = tempDir();
    const file = writeNdjson(dir, "one.ndjson", [example("createPepCheck")]);
    const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: dir };
    delete env.NODE_COMPILE_CACHE;
    delete env.NODE_DISABLE_COMPILE_CACHE;
    const run = spawnSync(
      process.execPath,
      ["--import", "tsx", fromRoot("conformance/cli.ts"), "check", file],
      {
        cwd: ROOT,
        env,
        encoding: "utf8",
      },
    );
    expect(run.status).toBe(0);
    expect(existsSync(join(dir, "node-compile-cache"))).toBe(nodeHasCompileCache);
  });
});
