// `npm run mock` and `npm run sandbox` build first only when a source is newer than dist/: the
// package script's own text, run by sh in a scratch tree with an `npm` that records being called.
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";

const scripts = JSON.parse(readFileSync(fromRoot("package.json"), "utf8")).scripts as Record<string, string>;

/** A scratch tree: dist/sandbox/cli.js built at `builtAt`, one source of each folder at `sourceAt`. */
function tree(builtAt: number, sourceAt: number) {
  const root = mkdtempSync(join(tmpdir(), "if-stale-"));
  const files = ["src/a.ts", "conformance/b.ts", "mock/c.ts", "sandbox/d.ts", "generated/e.json"];
  for (const file of files) {
    mkdirSync(join(root, file, ".."), { recursive: true });
    writeFileSync(join(root, file), "");
    utimesSync(join(root, file), sourceAt, sourceAt);
  }
  for (const file of ["tsconfig.json", "tsconfig.build.json"]) {
    writeFileSync(join(root, file), "{}");
    utimesSync(join(root, file), sourceAt, sourceAt);
  }
  mkdirSync(join(root, "dist/sandbox"), { recursive: true });
  writeFileSync(join(root, "dist/sandbox/cli.js"), "");
  utimesSync(join(root, "dist/sandbox/cli.js"), builtAt, builtAt);
  // An npm that only says it was asked to build.
  mkdirSync(join(root, "bin"));
  writeFileSync(join(root, "bin/npm"), `#!/bin/sh\necho "$@" > "${root}/built"\n`);
  chmodSync(join(root, "bin/npm"), 0o755);
  return root;
}

function run(root: string): boolean {
  execFileSync("sh", ["-c", scripts["build:if-stale"] as string], {
    cwd: root,
    env: { ...process.env, PATH: `${join(root, "bin")}:${process.env.PATH}` },
  });
  return existsSync(join(root, "built"));
}

describe("build:if-stale", () => {
  it("is what npm run mock and npm run sandbox run first", () => {
    expect(scripts.premock).toBe("npm run -s build:if-stale");
    expect(scripts.presandbox).toBe("npm run -s build:if-stale");
  });

  it("does not build when dist/ is newer than every source", () => {
    expect(run(tree(2_000_000_000, 1_000_000_000))).toBe(false);
  });

  it("builds when a source is newer, or when nothing was built", () => {
    const root = tree(1_000_000_000, 1_000_000_000);
    utimesSync(join(root, "sandbox/d.ts"), 2_000_000_000, 2_000_000_000);
    expect(run(root)).toBe(true);
    expect(readFileSync(join(root, "built"), "utf8").trim()).toBe("run -s build");
    const empty = tree(2_000_000_000, 1_000_000_000);
    execFileSync("rm", ["-r", join(empty, "dist")]);
    expect(run(empty)).toBe(true);
  });
});
