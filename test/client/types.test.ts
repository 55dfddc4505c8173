import { readFileSync } from "node:fs";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";

const FIXTURE = fromRoot("test/client/fixtures/typed-calls.ts");
// The fixture without its @ts-expect-error comments; it exists only in the compiler host below.
const BARE = fromRoot("test/client/fixtures/typed-calls-bare.ts");
const EXPECT = /\/\/ @ts-expect-error\b/;

const text = readFileSync(FIXTURE, "utf8");
const lines = text.split("\n");
const bare = lines.map((line) => line.replace(EXPECT, "// expected error")).join("\n");

/** Type-check the fixture and its bare twin in one program; the diagnostics of each, by 1-based line. */
function check(): Record<string, { line: number; message: string }[]> {
  const config = ts.parseJsonConfigFileContent(
    ts.readConfigFile(fromRoot("tsconfig.json"), ts.sys.readFile).config,
    ts.sys,
    fromRoot("."),
  );
  const host = ts.createCompilerHost(config.options);
  const getSourceFile = host.getSourceFile;
  host.getSourceFile = (name, version, ...rest) =>
    name === BARE
      ? ts.createSourceFile(name, bare, version)
      : getSourceFile.call(host, name, version, ...rest);
  const fileExists = host.fileExists;
  host.fileExists = (name) => name === BARE || fileExists.call(host, name);
  const program = ts.createProgram([FIXTURE, BARE], { ...config.options, noEmit: true }, host);
  const out: Record<string, { line: number; message: string }[]> = { [FIXTURE]: [], [BARE]: [] };
  for (const d of ts.getPreEmitDiagnostics(program)) {
    if (!d.file || !(d.file.fileName in out)) continue;
    out[d.file.fileName]?.push({
      line: d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1,
      message: ts.flattenDiagnosticMessageText(d.messageText, "\n"),
    });
  }
  return out;
}

describe("the client's types", () => {
  const expected = lines.flatMap((line, i) => (EXPECT.test(line) ? [i + 2] : []));
  let diagnostics: ReturnType<typeof check>;

  it("accept the typed calls, and every @ts-expect-error is needed", () => {
    diagnostics = check();
    expect(expected.length).toBeGreaterThanOrEqual(12);
    expect(diagnostics[FIXTURE]).toEqual([]);
  });

  it("reject each marked call on exactly the line after its @ts-expect-error", () => {
    diagnostics ??= check();
    const got = [...new Set(diagnostics[BARE]?.map((d) => d.line))].sort((a, b) => a - b);
    expect(got).toEqual(expected);
  });
});
