// Measures the shape of the source tree with the TypeScript compiler API: file lengths, function
// lengths and import circles over relative imports (type-only imports and `import("./x")` types count).
//
// A data table or a generated file may go over the limits only when its header (the comments before
// its first statement) holds the line `// shape: data table` or `// shape: generated`.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

export const MAX_FILE_LINES = 450;
export const MAX_FUNCTION_LINES = 120;
/** The header line that excepts a file from the length limits. */
export const EXCEPTION_MARKER = /^\/\/ shape: (data table|generated)\s*$/m;

/** One TypeScript file of the tree, by its path relative to the root. */
export interface SourceFile {
  path: string;
  text: string;
}

/** Every .ts file under the given folders of `root`, sorted by path. */
export function readTree(root: string, folders: readonly string[]): SourceFile[] {
  const files: SourceFile[] = [];
  const visit = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory() && entry.name !== "node_modules") visit(path);
      else if (entry.isFile() && entry.name.endsWith(".ts"))
        files.push({ path, text: readFileSync(join(root, path), "utf8") });
    }
  };
  for (const folder of folders) if (existsSync(join(root, folder))) visit(folder);
  return files.sort((a, b) => (a.path < b.path ? -1 : 1));
}

const parse = (file: SourceFile) => ts.createSourceFile(file.path, file.text, ts.ScriptTarget.Latest, true);

/** True when the file's header says it is a data table or generated. */
export function isExcepted(file: SourceFile): boolean {
  const source = parse(file);
  const first = source.statements[0];
  const header = file.text.slice(0, first ? first.getStart(source) : file.text.length);
  return EXCEPTION_MARKER.test(header);
}

/** The number of lines of a text, not counting the newline that ends the last one. */
export const lineCount = (text: string): number => text.replace(/\n$/, "").split("\n").length;

/** "path: N lines" for each file over the limit that is not excepted. */
export function longFiles(files: readonly SourceFile[], limit = MAX_FILE_LINES): string[] {
  return files
    .filter((f) => lineCount(f.text) > limit && !isExcepted(f))
    .map((f) => `${f.path}: ${lineCount(f.text)} lines (limit ${limit})`);
}

/** The name a reader would look for: the declaration's own, or the variable or property it is assigned to. */
function functionName(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return "constructor";
  const own =
    node.name ??
    (ts.isVariableDeclaration(node.parent) ||
    ts.isPropertyAssignment(node.parent) ||
    ts.isPropertyDeclaration(node.parent)
      ? node.parent.name
      : undefined);
  if (own) return own.getText(source);
  return "(anonymous function)";
}

/** "path:line name: N lines" for each function, method or arrow body over the limit. */
export function longFunctions(files: readonly SourceFile[], limit = MAX_FUNCTION_LINES): string[] {
  const found: string[] = [];
  for (const file of files) {
    if (isExcepted(file)) continue;
    const source = parse(file);
    const visit = (node: ts.Node) => {
      if (ts.isFunctionLike(node) && "body" in node && node.body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        const lines = end - start + 1;
        if (lines > limit)
          found.push(
            `${file.path}:${start + 1} ${functionName(node as ts.FunctionLikeDeclaration, source)}: ${lines} lines (limit ${limit})`,
          );
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** The relative module specifiers a file imports or re-exports, type-only ones included. */
function relativeSpecifiers(source: ts.SourceFile): string[] {
  const specifiers: string[] = [];
  const visit = (node: ts.Node) => {
    let specifier: ts.Expression | undefined;
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) specifier = node.moduleSpecifier;
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument))
      specifier = node.argument.literal;
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)
      specifier = node.arguments[0];
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      specifier = node.moduleReference.expression;
    if (specifier && ts.isStringLiteralLike(specifier) && specifier.text.startsWith("."))
      specifiers.push(specifier.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specifiers;
}

/** The import graph among the given files: path → the paths of the files it imports. */
export function importGraph(files: readonly SourceFile[]): Map<string, string[]> {
  const known = new Set(files.map((f) => f.path));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = new Set<string>();
    for (const specifier of relativeSpecifiers(parse(file))) {
      const base = relative("/", resolve("/", dirname(file.path), specifier));
      const candidates = [base.replace(/\.js$/, ".ts"), base, `${base}.ts`, `${base}/index.ts`];
      const target = candidates.find((c) => known.has(c));
      if (target) targets.add(target);
    }
    graph.set(file.path, [...targets].sort());
  }
  return graph;
}

/** The strongly connected components of a graph with more than one node or a self-loop (Tarjan). */
export function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  // Iterative, so that a long chain of imports cannot overflow the call stack.
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; next: number }[] = [{ node: start, next: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.next < edges.length) {
        const to = edges[frame.next++]!;
        if (!index.has(to)) {
          index.set(to, counter);
          low.set(to, counter++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, next: 0 });
        } else if (onStack.has(to)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.node);
      if (component.length > 1 || (graph.get(frame.node) ?? []).includes(frame.node))
        found.push(component.sort());
    }
  }
  return found.sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
}

/** One cycle through a component, from its first member back to it: "a → b → a". */
export function cycleThrough(
  component: readonly string[],
  graph: ReadonlyMap<string, readonly string[]>,
): string {
  const inside = new Set(component);
  const first = component[0]!;
  // Breadth-first from the first member to any member that imports it back.
  const previous = new Map<string, string>();
  const queue = [first];
  for (const node of queue) {
    for (const to of graph.get(node) ?? []) {
      if (!inside.has(to)) continue;
      if (to === first) {
        const path = [node];
        while (path[0] !== first) path.unshift(previous.get(path[0]!)!);
        return [...path, first].join(" → ");
      }
      if (!previous.has(to) && to !== first) {
        previous.set(to, node);
        queue.push(to);
      }
    }
  }
  return component.join(" ↔ ");
}

/** "circle: a → b → a" for each import circle, with every file of its component. */
export function importCircles(files: readonly SourceFile[]): string[] {
  const graph = importGraph(files);
  return circles(graph).map(
    (component) =>
      `circle of ${component.length} file(s): ${cycleThrough(component, graph)} [${component.join(", ")}]`,
  );
}
