// The breaking-change gate and the receiver test vectors: a vector whose expected answer changed, or
// a new format, breaks the receivers whose tests run them; other changes are listed, not breaking.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { isRecordedBy } from "../../scripts/evolution/changelog.js";
import { vectorChanges } from "../../scripts/evolution/classify-vectors.js";
import { bundleWorkingTree } from "../../scripts/evolution/git-base.js";
import { fromRoot, ROOT } from "../../scripts/lib/paths.js";

const load = () => JSON.parse(readFileSync(fromRoot("vectors/receiver.json"), "utf8"));
const find = (doc: { vectors: { case: string; expect: Record<string, unknown> }[] }, name: string) =>
  doc.vectors.find((v) => v.case === name)!;

describe("vectorChanges", () => {
  it("finds nothing between the same vectors, and nothing when the earlier version had none", () => {
    expect(vectorChanges(load(), load())).toEqual([]);
    expect(vectorChanges(undefined, load())).toEqual([]);
  });

  it("a changed expectation is breaking for receivers, named by case, URL and member", () => {
    const after = load();
    find(after, "no credentials").expect.status = ["2xx"];
    const changes = vectorChanges(load(), after);
    expect(changes.map((c) => [c.audience, c.breaking, c.where, c.member])).toEqual([
      ["receiver", true, "vector `no credentials` (events URL)", "`expect.status`"],
    ]);
    expect(changes[0]!.text).toBe(
      'vector `no credentials` (events URL): expect.status was ["4xx"], is ["2xx"].',
    );
    expect(
      isRecordedBy(changes[0]!, "- vector `no credentials` (events URL): `expect.status` is 2xx now."),
    ).toBe(true);
  });

  it("a vector added, removed or with new bytes is listed, not breaking; a new format or no file is", () => {
    const after = load();
    const removed = after.vectors.shift();
    after.vectors.push({ ...removed, case: "a new case" });
    after.vectors[0].body.sha256 = "0".repeat(64);
    const changes = vectorChanges(load(), after);
    expect(changes.filter((c) => c.breaking)).toEqual([]);
    expect(changes.map((c) => c.text.split(": ").pop())).toEqual([
      "removed.",
      "its headers or body changed.",
      "added.",
    ]);
    expect(vectorChanges(load(), { ...load(), format: 2 }).map((c) => c.breaking)).toEqual([true]);
    expect(vectorChanges(load(), undefined).map((c) => c.breaking)).toEqual([true]);
  });

  it("check:breaking reads the working tree's vectors beside its contract", () => {
    expect(bundleWorkingTree(ROOT).receiverVectors).toEqual(load());
  });
});
