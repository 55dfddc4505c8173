import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fromRoot } from "./paths.js";

const FILE = "docs/benchmarks.md";
const HEADER = `# Benchmarks

Measured by \`npm run bench…\` on the machine that ran them, side by side in one run. Each section is
rewritten by its own benchmark; numbers from a shared machine vary from run to run.
`;

/**
 * Replace one benchmark's section of docs/benchmarks.md (or of another page of docs/ that holds its
 * markers, such as docs/other-tools.md), leaving the others as they are.
 */
export function writeBenchSection(name: string, markdown: string, file = FILE): void {
  const path = fromRoot(file);
  const text = existsSync(path) ? readFileSync(path, "utf8") : HEADER;
  const open = `<!-- bench:${name} -->`;
  const close = `<!-- /bench:${name} -->`;
  const block = `${open}\n${markdown.trim()}\n${close}`;
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  const next =
    start >= 0 && end > start
      ? text.slice(0, start) + block + text.slice(end + close.length)
      : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(path, next);
}

/** The middle value of a sample (the upper middle of an even count); NaN for none. */
export const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
