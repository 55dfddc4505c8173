// npm run check:breaking [-- --base REF]: compares the contract (OpenAPI with its webhooks, and the
// AsyncAPI channels, messages, headers and payloads, and the receiver test vectors' expected answers)
// with the last release, classifies each change
// for clients and for webhook receivers (a released workflow of arazzo/ that no longer resolves is
// breaking), and fails when a breaking change is not recorded in
// CHANGELOG.md under an unreleased major version.
// Exit codes: 0 nothing unrecorded; 1 a breaking change is not recorded; 2 the check could not run.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { fromRoot } from "./lib/paths.js";
import { parseChangelog, isRecordedBy, suggestedBullet } from "./evolution/changelog.js";
import { type ContractChange, classifyChanges } from "./evolution/classify.js";
import { BaseError, bundleAt, bundleWorkingTree, findBase } from "./evolution/git-base.js";

const { values } = parseArgs({
  options: {
    base: { type: "string" },
    // The checkout to check; the repository's own by default (tests point it at a fixture repository).
    root: { type: "string", default: fromRoot() },
  },
});
const root = values.root;

function main(): number {
  const base = findBase(root, values.base);
  console.log(`check:breaking: the contract now against ${base.ref} (${base.why})`);
  const changes = classifyChanges(bundleAt(root, base.commit), bundleWorkingTree(root));

  const changelog = parseChangelog(readFileSync(join(root, "CHANGELOG.md"), "utf8"));
  for (const problem of changelog.problems) console.log(`CHANGELOG.md ${problem}`);
  const newest = changelog.releases[0];
  // A breaking change needs a major above the last release (any version when nothing was released).
  const unreleasedMajor =
    newest && newest.date === null && (base.version === null || newest.major > base.version.major)
      ? newest
      : undefined;
  const recorded = (c: ContractChange) =>
    unreleasedMajor !== undefined && unreleasedMajor.breaking.some((b) => isRecordedBy(c, b));

  const breaking = changes.filter((c) => c.breaking);
  const missing = breaking.filter((c) => !recorded(c));
  for (const audience of ["client", "receiver"] as const) {
    const list = breaking.filter((c) => c.audience === audience);
    if (list.length === 0) continue;
    console.log(
      `\nBreaking for ${audience === "client" ? "API clients" : "webhook receivers"} (${list.length}):`,
    );
    for (const c of list) console.log(`  ${recorded(c) ? "recorded  " : "UNRECORDED"} ${c.text}`);
  }
  const other = changes.filter((c) => !c.breaking);
  if (other.length > 0) {
    console.log(`\nNot breaking (${other.length}):`);
    for (const c of other) console.log(`  ${c.audience === "client" ? "client  " : "receiver"} ${c.text}`);
  }
  if (changes.length === 0) console.log("No change to the contract.");

  if (missing.length === 0) {
    console.log(`\n${breaking.length} breaking, ${other.length} other; every breaking change is recorded.`);
    return 0;
  }
  const since = base.version ? `above ${base.version.text}` : "(nothing is released yet)";
  console.log(
    `\n${missing.length} breaking change${missing.length > 1 ? "s are" : " is"} not recorded in CHANGELOG.md.` +
      (unreleasedMajor
        ? ""
        : `\nThe newest heading must be an unreleased major ${since}, e.g. "## ${(base.version?.major ?? 0) + 1}.0.0 — Unreleased";` +
          " move package.json's version and both contracts' info.version to it too."),
  );
  console.log(`Record them under its "### Breaking changes", for example:`);
  for (const c of missing) console.log(suggestedBullet(c));
  return 1;
}

try {
  process.exitCode = main();
} catch (error) {
  // Anything that stops the comparison (no git, a missing ref, a contract that does not bundle)
  // is exit 2, so that CI never reads it as "a breaking change" or as a pass.
  const message =
    error instanceof BaseError ? error.message : `could not compare: ${(error as Error).message}`;
  console.error(`check:breaking: ${message}`);
  process.exitCode = 2;
}
