// The breaking-change gate and the workflows: a released workflow (arazzo/) whose operation or
// awaited event the contract no longer has is a breaking change, named by workflow and step.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { loadArazzo } from "../../scripts/arazzo/load-yaml.js";
import { isRecordedBy } from "../../scripts/evolution/changelog.js";
import { workflowChanges } from "../../scripts/evolution/classify-workflows.js";
import { fromRoot, ROOT } from "../../scripts/lib/paths.js";
import { loadAsyncApi, loadOpenApi } from "../support/contract.js";

const released = loadArazzo(ROOT);

describe("workflowChanges", () => {
  it("finds nothing while the contract has every operation and event the workflows name", () => {
    expect(workflowChanges(released, { openapi: loadOpenApi(), asyncapi: loadAsyncApi() })).toEqual([]);
  });

  it("an operation gone breaks every step that calls it, for clients", () => {
    const openapi = loadOpenApi();
    delete openapi.paths["/api/v4/pdf/pep_checks/{id}"];
    const changes = workflowChanges(released, { openapi, asyncapi: loadAsyncApi() });
    expect(changes.map((c) => [c.audience, c.breaking, c.where, c.member])).toEqual([
      ["client", true, "workflow `pep-check-pdf`", "step `pdf`"],
      ["client", true, "workflow `pep-check-pdf`", "step `pdfAgain`"],
    ]);
    expect(changes[0]!.text).toBe(
      "workflow `pep-check-pdf`: step `pdf` (arazzo/pep-checks.arazzo.yaml) calls what the contract no longer has: the OpenAPI contract has no operation `getPepCheckPdf`.",
    );
    const bullet = "workflow `pep-check-pdf`: the PDF download is gone.";
    expect(changes.every((c) => isRecordedBy(c, bullet))).toBe(true);
    expect(isRecordedBy(changes[0]!, "workflow `kyb-search-verify-pdf`: changed.")).toBe(false);
  });

  it("an event gone breaks the step that awaits it, for receivers", () => {
    const asyncapi = loadAsyncApi();
    delete asyncapi.channels.eddCaseCompleted.messages.caseCompleted;
    const changes = workflowChanges(released, { openapi: loadOpenApi(), asyncapi });
    expect(changes.map((c) => [c.audience, c.where, c.member])).toEqual([
      ["receiver", "workflow `edd-case-upload-complete`", "step `caseCompleted`"],
    ]);
    expect(changes[0]!.text).toContain("awaits what the contract no longer has");
  });
});

describe("npm run check:breaking with workflows", () => {
  const base = parse(readFileSync(new URL("fixtures/base.yaml", import.meta.url), "utf8"));
  const dir = mkdtempSync(join(tmpdir(), "idv-check-workflows-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const git = (...args: string[]) => {
    const r = spawnSync("git", args, { cwd: dir, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  };
  const write = (path: string, value: unknown) => {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), typeof value === "string" ? value : stringify(value));
  };
  const commit = (message: string) => {
    git("add", "-A");
    git("-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "-m", message);
  };
  const check = () => {
    const r = spawnSync(
      process.execPath,
      ["--import", "tsx", fromRoot("scripts/check-breaking.ts"), "--root", dir],
      { cwd: fromRoot(), encoding: "utf8" },
    );
    return { status: r.status, out: r.stdout + r.stderr };
  };
  const workflow = {
    arazzo: "1.0.1",
    info: { title: "Checks", version: "1.0.0" },
    sourceDescriptions: [{ name: "api", url: "../generated/openapi.yaml", type: "openapi" }],
    workflows: [
      {
        workflowId: "create-then-list",
        steps: [
          { stepId: "create", operationId: "createCheck" },
          { stepId: "list", operationId: "listChecks" },
        ],
      },
    ],
  };
  const changelog = (bullets: string) =>
    `# Changelog\n\n## 2.0.0 — Unreleased\n\n### Breaking changes\n\n${bullets}\n## 1.0.0 — 2026-01-05\n\n### Other changes\n\n- First.\n`;

  it("fails until the workflow whose operation is gone is recorded, then passes", () => {
    git("init", "-q");
    write("openapi/openapi.yaml", base.openapi);
    write("asyncapi/asyncapi.yaml", base.asyncapi);
    write("arazzo/checks.arazzo.yaml", workflow);
    write("CHANGELOG.md", "# Changelog\n\n## 1.0.0 — 2026-01-05\n\n### Other changes\n\n- First.\n");
    commit("first");
    git("tag", "v1.0.0");
    const withoutList = structuredClone(base.openapi);
    delete withoutList.paths["/checks"].get;
    write("openapi/openapi.yaml", withoutList);
    write("CHANGELOG.md", changelog("- `GET /checks`: removed.\n"));
    commit("remove GET /checks");

    const unrecorded = check();
    expect(unrecorded.out).toContain(
      "UNRECORDED workflow `create-then-list`: step `list` (arazzo/checks.arazzo.yaml) calls what the contract no longer has: the OpenAPI contract has no operation `listChecks`.",
    );
    expect(unrecorded.out).toContain("recorded   GET /checks: the operation was removed.");
    expect(unrecorded.status).toBe(1);

    write(
      "CHANGELOG.md",
      changelog(
        "- `GET /checks`: removed.\n- workflow `create-then-list`: step `list` is gone; the workflow ends after creating.\n",
      ),
    );
    const recorded = check();
    expect(recorded.out).toContain("recorded   workflow `create-then-list`: step `list`");
    expect(recorded.status).toBe(0);
  });
});
