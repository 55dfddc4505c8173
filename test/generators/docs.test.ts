// docs/other-tools.md states the compiler options the generated clients are checked with: the
// ones generators.test.ts uses, so a reader who copies them compiles what the test compiled.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";
import { GENERATED_CLIENT_OPTIONS } from "./compiler-options.js";

const page = readFileSync(fromRoot("docs/other-tools.md"), "utf8").replace(/\s+/g, " ");

describe("docs/other-tools.md", () => {
  it("names the lib, target and module resolution the generated clients are compiled with", () => {
    const { lib, target, moduleResolution } = GENERATED_CLIENT_OPTIONS;
    const stated = /`lib` ([^:)]+?):/.exec(page)?.[1];
    expect(stated?.split(/, | and /)).toEqual(lib);
    expect(page).toContain(`\`target\` ${target}`);
    expect(page).toContain(`\`moduleResolution\` ${moduleResolution}`);
  });
});
