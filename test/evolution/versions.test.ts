import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { isRecordedBy, parseChangelog } from "../../scripts/evolution/changelog.js";
import type { ContractChange } from "../../scripts/evolution/classify.js";
import { fromRoot } from "../../scripts/lib/paths.js";

const read = (path: string) => readFileSync(fromRoot(path), "utf8");

describe("versions move together", () => {
  it("package.json, both contracts (sources and bundles) and the newest CHANGELOG heading agree", () => {
    const changelog = parseChangelog(read("CHANGELOG.md"));
    expect(changelog.problems).toEqual([]);
    const versions = {
      "package.json": JSON.parse(read("package.json")).version,
      "package-lock.json": JSON.parse(read("package-lock.json")).version,
      "openapi/openapi.yaml": parse(read("openapi/openapi.yaml")).info.version,
      "asyncapi/asyncapi.yaml": parse(read("asyncapi/asyncapi.yaml")).info.version,
      "generated/openapi.json": JSON.parse(read("generated/openapi.json")).info.version,
      "generated/asyncapi.json": JSON.parse(read("generated/asyncapi.json")).info.version,
      "CHANGELOG.md newest heading": changelog.releases[0]?.version,
    };
    const expected = Object.fromEntries(Object.keys(versions).map((k) => [k, versions["package.json"]]));
    expect(versions).toEqual(expected);
  });
});

describe("the CHANGELOG format", () => {
  const text = `# Changelog

## 2.0.0 — Unreleased

### Breaking changes

- \`POST /api/v4/pep_checks\`: the request's \`reference\` is required.
- event \`completed\` of \`biometricWebhook\`: the event was removed.

### Other changes

- Something new.

## 1.0.0 — 2026-11-30

### Breaking changes

- \`GET /old\`: removed.
`;

  it("reads releases newest first, with their breaking bullets", () => {
    const { releases, problems } = parseChangelog(text);
    expect(problems).toEqual([]);
    expect(releases.map((r) => [r.version, r.date, r.breaking.length])).toEqual([
      ["2.0.0", null, 2],
      ["1.0.0", "2026-11-30", 1],
    ]);
  });

  it("names the lines that break the format", () => {
    const { problems } = parseChangelog("## 1.0.0 - 2026-01-01\n### Fixes\n");
    expect(problems).toEqual([
      'line 1: a release heading is "## x.y.z — YYYY-MM-DD" or "## x.y.z — Unreleased"',
      'line 2: a release\'s subsections are "### Breaking changes" and "### Other changes"',
    ]);
  });

  const change = (where: string, member?: string): ContractChange => ({
    audience: "client",
    breaking: true,
    where,
    ...(member ? { member } : {}),
    text: `${where}: ${member ?? "it"} changed.`,
  });

  it("counts a change as recorded when a bullet names its operation and member", () => {
    const [pep, event] = parseChangelog(text).releases[0]!.breaking as [string, string];
    expect(isRecordedBy(change("POST /api/v4/pep_checks", "request body member `reference`"), pep)).toBe(
      true,
    );
    expect(isRecordedBy(change("POST /api/v4/pep_checks", "request body member `metadata`"), pep)).toBe(
      false,
    );
    expect(isRecordedBy(change("POST /api/v4/pep_checks/{id}", "request body member `reference`"), pep)).toBe(
      false,
    );
    expect(isRecordedBy(change("event `completed` of `biometricWebhook`"), event)).toBe(true);
    expect(isRecordedBy(change("event `completed` of `biometricWebhook`", "payload member `x`"), event)).toBe(
      true,
    );
    expect(isRecordedBy(change("event `created` of `biometricWebhook`"), event)).toBe(false);
  });
});
