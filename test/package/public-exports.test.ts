// The packed package's public exports stay as committed in public-exports.json: every subpath of
// package.json "exports" with its value and type names, the files of its JSON and pattern subpaths,
// and the bin names. To change them on purpose: npx tsx scripts/public-exports.ts --write.
import { describe, expect, it } from "vitest";
import {
  diffSurface,
  type PublicSurface,
  readPublicSurface,
  readSnapshot,
} from "../../scripts/public-exports.js";

describe("public exports", () => {
  it("are the committed ones: no subpath, name or bin added or removed", { timeout: 180_000 }, () => {
    const { surface, problems } = readPublicSurface();
    expect(problems, "the declarations and the built JavaScript disagree").toEqual([]);
    const changes = diffSurface(readSnapshot(), surface);
    expect(
      changes,
      "public exports changed (npx tsx scripts/public-exports.ts --write if on purpose)",
    ).toEqual([]);
  });

  it("names each added and removed name by subpath and kind", () => {
    const before: PublicSurface = {
      exports: { ".": { values: ["a", "b"], types: ["T"] }, "./x": { files: ["x.json"] } },
      bin: { tool: "dist/tool.js" },
    };
    const after: PublicSurface = {
      exports: { ".": { values: ["b", "c"], types: ["T"] }, "./y": { files: ["y.json"] } },
      bin: { tool: "dist/other.js", more: "dist/more.js" },
    };
    expect(diffSurface(before, after)).toEqual([
      'exports["."] values: removed a',
      'exports["."] values: added c',
      'exports["./x"]: removed subpath',
      'exports["./y"]: added subpath',
      "bin: added more",
      "bin tool: dist/tool.js became dist/other.js",
    ]);
    expect(diffSurface(before, before)).toEqual([]);
  });
});
