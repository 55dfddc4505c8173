// The shape of the tree (issue 32): no source file over 450 lines, no function over 120 lines and no
// import circle (type-only imports count) in src, mock, sandbox, conformance, scripts and bench.
// A data table or a generated file is excepted only when its header holds `// shape: data table` or
// `// shape: generated` (see shape.ts).
import { describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";
import {
  importCircles,
  importGraph,
  circles,
  longFiles,
  longFunctions,
  readTree,
  type SourceFile,
} from "./shape.js";

const FOLDERS = ["src", "mock", "sandbox", "conformance", "scripts", "bench"] as const;
const tree = readTree(fromRoot(), FOLDERS);

describe("shape of the source tree", () => {
  it("reads every folder", () => {
    for (const folder of FOLDERS)
      expect(
        tree.some((f) => f.path.startsWith(`${folder}/`)),
        folder,
      ).toBe(true);
  });

  it("has no file over 450 lines", () => {
    expect(
      longFiles(tree),
      "split these files (or mark a data table or generated file in its header)",
    ).toEqual([]);
  });

  it("has no function over 120 lines", () => {
    expect(longFunctions(tree), "split these functions").toEqual([]);
  });

  it("has no import circle", () => {
    expect(
      importCircles(tree),
      "break these circles (often by moving a type to the file that owns it)",
    ).toEqual([]);
  });
});

describe("the measures", () => {
  const file = (path: string, text: string): SourceFile => ({ path, text });
  const lines = (n: number, line = "x;") => `${Array.from({ length: n }, () => line).join("\n")}\n`;

  it("count a file's lines and honour only a header marker", () => {
    expect(longFiles([file("a.ts", lines(451)), file("b.ts", lines(450))], 450)).toEqual([
      "a.ts: 451 lines (limit 450)",
    ]);
    expect(longFiles([file("t.ts", `// A table.\n// shape: data table\n${lines(460)}`)])).toEqual([]);
    const late = `x;\n// shape: data table\n${lines(460)}`;
    expect(longFiles([file("late.ts", late)])).toEqual(["late.ts: 462 lines (limit 450)"]);
  });

  it("name long functions, methods and arrows where they start", () => {
    const body = lines(120, "  work();");
    const text = `function long() {\n${body}}\nconst arrow = () => {\n${lines(118, "  work();")}};\nclass C {\n  method() {\n${body}  }\n}\n`;
    expect(longFunctions([file("f.ts", text)])).toEqual([
      "f.ts:1 long: 122 lines (limit 120)",
      "f.ts:244 method: 122 lines (limit 120)",
    ]);
  });

  it("find circles closed by a type-only import or an import type, and name one cycle", () => {
    const files = [
      file("a/one.ts", 'import type { T } from "./two.js";\n'),
      file("a/two.ts", 'export { x } from "../b/three.js";\n'),
      file("b/three.ts", 'let y: import("../a/one.js").U;\n'),
      file("b/free.ts", 'import { z } from "../a/one.js";\n'),
    ];
    expect(circles(importGraph(files))).toEqual([["a/one.ts", "a/two.ts", "b/three.ts"]]);
    expect(importCircles(files)).toEqual([
      "circle of 3 file(s): a/one.ts → a/two.ts → b/three.ts → a/one.ts [a/one.ts, a/two.ts, b/three.ts]",
    ]);
    expect(importCircles([file("self.ts", 'import "./self.js";\n')])).toEqual([
      "circle of 1 file(s): self.ts → self.ts [self.ts]",
    ]);
  });
});
