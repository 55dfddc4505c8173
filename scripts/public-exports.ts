// The packed package's public surface: for each subpath of package.json "exports" the names it
// exports (values read by importing the built JavaScript, type-only names read from the emitted
// declarations with the TypeScript compiler API), the files of its JSON and pattern subpaths, and
// the bin names. test/package/public-exports.test.ts compares it with test/package/public-exports.json.
//
//   npx tsx scripts/public-exports.ts          print the differences with the snapshot (exit 1 if any)
//   npx tsx scripts/public-exports.ts --write  update the snapshot (a deliberate change of the API:
//                                              say it in CHANGELOG.md)
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { fromRoot, ROOT } from "./lib/paths.js";
import { QUIET_ENV } from "./lib/run-tool.js";

/** What one "exports" subpath offers: names for JavaScript entries, files for the others. */
export interface SubpathSurface {
  values?: string[];
  types?: string[];
  files?: string[];
}

/** The public surface of the package: its subpaths and its bins. */
export interface PublicSurface {
  exports: Record<string, SubpathSurface>;
  bin: Record<string, string>;
}

/** The committed snapshot that the test compares with. */
export const SNAPSHOT = fromRoot("test/package/public-exports.json");

const NOTE =
  "The package's public exports and bins. A test fails when they change. To change them on purpose: " +
  "npx tsx scripts/public-exports.ts --write, then say it in CHANGELOG.md.";

interface Manifest {
  exports: Record<string, string | { types: string; default: string }>;
  bin: Record<string, string>;
}

const byCodeUnit = (names: Iterable<string>): string[] =>
  [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** Emit the package build (JavaScript and declarations) into a fresh directory beside dist/'s depth. */
function compile(): { out: string; remove: () => void } {
  mkdirSync(fromRoot("node_modules/.cache"), { recursive: true });
  // Not dist/: the package build rewrites it while other test files read it.
  const out = mkdtempSync(fromRoot("node_modules/.cache/public-exports-"));
  const tsc = fromRoot("node_modules/typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json", "--outDir", out, "--noCheck"], {
    cwd: ROOT,
  });
  // tsc does not copy the generated JavaScript validators; the package build copies them the same way.
  for (const file of execFileSync("git", ["ls-files", "generated/*.js"], { cwd: ROOT, encoding: "utf8" })
    .split("\n")
    .filter(Boolean))
    writeFileSync(join(out, file), readFileSync(fromRoot(file)));
  return { out, remove: () => rmSync(out, { recursive: true, force: true }) };
}

/** True when an alias is declared type-only (`export type { X }`, `export { type X }`). */
function typeOnlyAlias(symbol: ts.Symbol): boolean {
  return (symbol.declarations ?? []).some((d) => ts.isTypeOnlyImportOrExportDeclaration(d));
}

/** The names a declaration file exports, split into those that exist at run time and type-only ones. */
function declaredNames(program: ts.Program, file: string): { values: string[]; types: string[] } {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const module = source && checker.getSymbolAtLocation(source);
  if (!module) throw new Error(`${file}: no module symbol (is it a declaration file with exports?)`);
  const values: string[] = [];
  const types: string[] = [];
  for (const exported of checker.getExportsOfModule(module)) {
    let symbol = exported;
    let typeOnly = false;
    // Follow re-exports one step at a time: one type-only link makes the name type-only.
    for (let depth = 0; symbol.flags & ts.SymbolFlags.Alias && depth < 64; depth++) {
      typeOnly ||= typeOnlyAlias(symbol);
      symbol = checker.getImmediateAliasedSymbol(symbol) ?? symbol;
      if (!(symbol.flags & ts.SymbolFlags.Alias)) break;
    }
    const isValue = !typeOnly && (symbol.flags & ts.SymbolFlags.Value) !== 0;
    (isValue ? values : types).push(exported.name);
  }
  return { values: byCodeUnit(values), types: byCodeUnit(types) };
}

/** The names each built entry exports at run time, read by a plain Node that imports it. */
function runtimeNames(entries: Record<string, string>): Record<string, string[]> {
  const script =
    "const out = {}; for (const [key, url] of Object.entries(JSON.parse(process.argv[1]))) " +
    "out[key] = Object.keys(await import(url)); console.log(JSON.stringify(out));";
  const urls = Object.fromEntries(Object.entries(entries).map(([k, f]) => [k, pathToFileURL(f).href]));
  const stdout = execFileSync(process.execPath, ["--input-type=module", "-e", script, JSON.stringify(urls)], {
    cwd: ROOT,
    env: QUIET_ENV,
    encoding: "utf8",
  });
  const names = JSON.parse(stdout) as Record<string, string[]>;
  return Object.fromEntries(Object.entries(names).map(([k, v]) => [k, byCodeUnit(v)]));
}

/**
 * The files npm would pack of the folders the JSON and pattern subpaths point into. npm lists them
 * from a copy of those folders beside package.json, so that it never walks dist/, which the package
 * build may be rewriting while this runs.
 */
function packedFiles(targets: string[], scratch: string): string[] {
  const stage = join(scratch, "pack");
  mkdirSync(stage);
  const tops = new Set(["package.json", ...targets.map((t) => t.replace(/^\.\//, "").split("/")[0] ?? "")]);
  for (const top of tops)
    if (top && existsSync(fromRoot(top))) cpSync(fromRoot(top), join(stage, top), { recursive: true });
  const stdout = execFileSync(
    "npm",
    ["pack", "--dry-run", "--ignore-scripts", "--json", "--loglevel=error"],
    {
      cwd: stage,
      env: QUIET_ENV,
      encoding: "utf8",
    },
  );
  const [listed] = JSON.parse(stdout) as [{ files: { path: string }[] }];
  return listed.files.map((f) => f.path);
}

/** The packed files an "exports" target (a path, or a pattern with one `*`) resolves to. */
function filesOf(target: string, packed: string[]): string[] {
  const [head = "", tail = ""] = target.replace(/^\.\//, "").split("*");
  const pattern = target.includes("*");
  return byCodeUnit(packed.filter((f) => (pattern ? f.startsWith(head) && f.endsWith(tail) : f === head)));
}

/** Read the public surface of the package as built from this checkout. */
export function readPublicSurface(): { surface: PublicSurface; problems: string[] } {
  const manifest = JSON.parse(readFileSync(fromRoot("package.json"), "utf8")) as Manifest;
  const { out, remove } = compile();
  try {
    const built = (target: string) => join(out, target.replace(/^\.\/dist\//, ""));
    const scripts = Object.entries(manifest.exports).filter(([, t]) => typeof t !== "string") as [
      string,
      { types: string; default: string },
    ][];
    const runtime = runtimeNames(Object.fromEntries(scripts.map(([key, t]) => [key, built(t.default)])));
    const program = ts.createProgram(
      scripts.map(([, t]) => built(t.types)),
      {
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        noEmit: true,
        skipLibCheck: true,
      },
    );
    const targets = Object.values(manifest.exports).filter((t) => typeof t === "string");
    const packed = packedFiles(targets, out);
    const problems: string[] = [];
    const exports: Record<string, SubpathSurface> = {};
    for (const [key, target] of Object.entries(manifest.exports)) {
      if (typeof target === "string") {
        exports[key] = { files: filesOf(target, packed) };
        continue;
      }
      const declared = declaredNames(program, built(target.types));
      const values = runtime[key] ?? [];
      const missing = declared.values.filter((n) => !values.includes(n));
      const undeclared = values.filter((n) => !declared.values.includes(n));
      if (missing.length)
        problems.push(`${key}: declared as values but absent at run time: ${missing.join(", ")}`);
      if (undeclared.length)
        problems.push(`${key}: exported at run time but not declared: ${undeclared.join(", ")}`);
      exports[key] = { values, types: declared.types };
    }
    return { surface: { exports, bin: manifest.bin }, problems };
  } finally {
    remove();
  }
}

/** The added and removed names of each subpath and bin, one line each; empty when the same. */
export function diffSurface(before: PublicSurface, after: PublicSurface): string[] {
  const lines: string[] = [];
  const compare = (where: string, was: string[], now: string[]) => {
    const removed = was.filter((n) => !now.includes(n));
    const added = now.filter((n) => !was.includes(n));
    if (removed.length) lines.push(`${where}: removed ${removed.join(", ")}`);
    if (added.length) lines.push(`${where}: added ${added.join(", ")}`);
  };
  const subpaths = byCodeUnit(new Set([...Object.keys(before.exports), ...Object.keys(after.exports)]));
  for (const key of subpaths) {
    const was = before.exports[key];
    const now = after.exports[key];
    if (!was || !now) {
      lines.push(`exports["${key}"]: ${was ? "removed" : "added"} subpath`);
      continue;
    }
    for (const kind of ["values", "types", "files"] as const)
      compare(`exports["${key}"] ${kind}`, was[kind] ?? [], now[kind] ?? []);
  }
  compare("bin", Object.keys(before.bin), Object.keys(after.bin));
  for (const [name, path] of Object.entries(after.bin))
    if (before.bin[name] !== undefined && before.bin[name] !== path)
      lines.push(`bin ${name}: ${before.bin[name]} became ${path}`);
  return lines;
}

/** The snapshot as committed. */
export function readSnapshot(): PublicSurface {
  const { exports, bin } = JSON.parse(readFileSync(SNAPSHOT, "utf8")) as PublicSurface;
  return { exports, bin };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { surface, problems } = readPublicSurface();
  for (const problem of problems) console.error(problem);
  if (process.argv.includes("--write")) {
    writeFileSync(SNAPSHOT, `${JSON.stringify({ $comment: NOTE, ...surface }, null, 2)}\n`);
    console.log(`wrote ${SNAPSHOT}`);
  } else {
    const lines = diffSurface(readSnapshot(), surface);
    for (const line of lines) console.log(line);
    if (lines.length) console.log("(npx tsx scripts/public-exports.ts --write to accept them)");
    process.exitCode = lines.length || problems.length ? 1 : 0;
  }
}
