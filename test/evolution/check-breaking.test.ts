// npm run check:breaking end to end, on a repository of its own made from the fixture contract:
// tags, CHANGELOG records, no tag, a shallow clone, a ref that is not there.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { fromRoot } from "../../scripts/lib/paths.js";

const base = parse(readFileSync(new URL("fixtures/base.yaml", import.meta.url), "utf8"));
const dir = mkdtempSync(join(tmpdir(), "idv-check-breaking-"));
const repo = join(dir, "repo");

const git = (cwd: string, ...args: string[]) => {
  const r = spawnSync("git", args, { cwd, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout.trim();
};

function write(openapi: unknown, changelog: string) {
  writeFileSync(join(repo, "openapi/openapi.yaml"), stringify(openapi));
  writeFileSync(join(repo, "asyncapi/asyncapi.yaml"), stringify(base.asyncapi));
  writeFileSync(join(repo, "CHANGELOG.md"), changelog);
}

function commit(message: string) {
  git(repo, "add", "-A");
  git(repo, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "-m", message);
}

function check(cwdRepo: string, ...args: string[]) {
  const r = spawnSync(
    process.execPath,
    ["--import", "tsx", fromRoot("scripts/check-breaking.ts"), "--root", cwdRepo, ...args],
    { cwd: fromRoot(), encoding: "utf8" },
  );
  return { status: r.status, out: r.stdout + r.stderr };
}

const released = "# Changelog\n\n## 1.0.0 — 2026-01-05\n\n### Other changes\n\n- First.\n";
const withoutGet = structuredClone(base.openapi);
delete withoutGet.paths["/checks"].get;

beforeAll(() => {
  mkdirSync(join(repo, "openapi"), { recursive: true });
  mkdirSync(join(repo, "asyncapi"), { recursive: true });
  git(repo, "init", "-q");
  write(base.openapi, released);
  commit("first");
  git(repo, "tag", "v1.0.0");
  write(withoutGet, released);
  commit("remove GET /checks");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("npm run check:breaking", () => {
  it("fails on a breaking change not recorded under an unreleased major, naming it and the bullet to add", () => {
    // Recorded, but under a minor: a breaking change needs a major above the last release.
    writeFileSync(
      join(repo, "CHANGELOG.md"),
      `# Changelog\n\n## 1.1.0 — Unreleased\n\n### Breaking changes\n\n- \`GET /checks\`: removed.\n`,
    );
    const { status, out } = check(repo);
    writeFileSync(join(repo, "CHANGELOG.md"), released);
    expect(out).toContain("against v1.0.0 (the newest v* tag)");
    expect(out).toContain("UNRECORDED GET /checks: the operation was removed.");
    expect(out).toContain('"## 2.0.0 — Unreleased"');
    expect(out).toContain("- `GET /checks`: the operation was removed.");
    expect(status).toBe(1);
  });

  it("passes once the change is recorded under 2.0.0 — Unreleased (working tree, not committed)", () => {
    const changelog = `# Changelog\n\n## 2.0.0 — Unreleased\n\n### Breaking changes\n\n- \`GET /checks\`: removed; use POST.\n\n${released.slice(13)}`;
    writeFileSync(join(repo, "CHANGELOG.md"), changelog);
    try {
      const { status, out } = check(repo);
      expect(out).toContain("recorded   GET /checks: the operation was removed.");
      expect(status).toBe(0);
    } finally {
      writeFileSync(join(repo, "CHANGELOG.md"), released);
    }
  });

  it("exits 2, saying what to fetch, in a shallow clone without tags, and for a ref it does not have", () => {
    const shallow = join(dir, "shallow");
    git(dir, "clone", "-q", "--depth", "1", "--no-tags", `file://${repo}`, shallow);
    const noTag = check(shallow);
    expect(noTag.status).toBe(2);
    expect(noTag.out).toContain("git fetch --tags --unshallow");
    const missing = check(repo, "--base", "v9.9.9");
    expect(missing.status).toBe(2);
    expect(missing.out).toContain("v9.9.9 is not a commit of this clone");
  });
});
