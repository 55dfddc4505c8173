// Type tests on exact lines: a fixture whose every `// @ts-expect-error` must be needed, and a bare twin
// (the comments made inert, in the compiler host alone) whose errors must fall exactly on the lines
// after them, so that an error moved to another line, or a second one, fails.
import { readFileSync } from "node:fs";
import ts from "typescript";
import { fromRoot } from "../../scripts/lib/paths.js";

const EXPECT = /\/\/ @ts-expect-error\b/;

/** The diagnostics of a fixture and of its bare twin, by 1-based line, and the lines that expect one. */
export function typeCheckFixture(fixture: string): {
  expected: number[];
  fixture: { line: number; message: string }[];
  bare: { line: number; message: string }[];
} {
  const bareName = fixture.replace(/\.ts$/, "-bare.ts");
  const lines = readFileSync(fixture, "utf8").split("\n");
  const bare = lines.map((line) => line.replace(EXPECT, "// expected error")).join("\n");
  const config = ts.parseJsonConfigFileContent(
    ts.readConfigFile(fromRoot("tsconfig.json"), ts.sys.readFile).config,
    ts.sys,
    fromRoot("."),
  );
  const host = ts.createCompilerHost(config.options);
  const getSourceFile = host.getSourceFile;
  host.getSourceFile = (name, version, ...rest) =>
    name === bareName
      ? ts.createSourceFile(name, bare, version)
      : getSourceFile.call(host, name, version, ...rest);
  const fileExists = host.fileExists;
  host.fileExists = (name) => name === bareName || fileExists.call(host, name);
  const program = ts.createProgram([fixture, bareName], { ...config.options, noEmit: true }, host);
  const out: Record<string, { line: number; message: string }[]> = { [fixture]: [], [bareName]: [] };
  for (const d of ts.getPreEmitDiagnostics(program)) {
    if (!d.file || !(d.file.fileName in out)) continue;
    out[d.file.fileName]?.push({
      line: d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1,
      message: ts.flattenDiagnosticMessageText(d.messageText, "\n"),
    });
  }
  return {
    expected: lines.flatMap((line, i) => (EXPECT.test(line) ? [i + 2] : [])),
    fixture: out[fixture] ?? [],
    bare: out[bareName] ?? [],
  };
}
