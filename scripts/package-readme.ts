// npm pack and npm publish always ship the README at the package's root, whatever `files` says. The
// package's users need docs/package/README.md (install, client, webhooks, conformance CLI), not the
// repository's README, which points at npm scripts and docs/ files the package does not carry.
// prepack puts the package's README in place; postpack puts the repository's back.
//
// Usage: tsx scripts/package-readme.ts in|out [root]   (root: the package folder, default the repository)
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fromRoot } from "./lib/paths.js";

const [step, root = fromRoot()] = process.argv.slice(2);
const readme = join(resolve(root), "README.md");
// Kept under node_modules/ (never committed, never packed) until postpack.
const saved = join(resolve(root), "node_modules/.cache/package-readme/README.md");
// The package's README, without its leading comment (a note for the repository's readers).
const packageReadme = readFileSync(join(resolve(root), "docs/package/README.md"), "utf8")
  .replace(/^<!--[\s\S]*?-->\s*/, "")
  .trimStart();

const current = () => (existsSync(readme) ? readFileSync(readme, "utf8") : "");

if (step === "in") {
  // After a pack that failed before postpack, the package's README is still in place and the
  // repository's is the one saved: it must not be overwritten.
  if (current() !== packageReadme) {
    mkdirSync(join(saved, ".."), { recursive: true });
    copyFileSync(readme, saved);
    writeFileSync(readme, packageReadme);
  }
  console.log("README.md is the package's README until postpack");
} else if (step === "out") {
  if (existsSync(saved)) {
    copyFileSync(saved, readme);
    rmSync(saved);
  } else if (current() === packageReadme) {
    console.error("README.md is the package's README and no saved copy exists: git checkout README.md");
    process.exit(1);
  }
  console.log("README.md is the repository's README again");
} else {
  console.error("usage: tsx scripts/package-readme.ts in|out [root]");
  process.exit(2);
}
