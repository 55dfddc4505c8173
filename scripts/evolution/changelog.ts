// Reads CHANGELOG.md in the format its preamble describes: one `## x.y.z — YYYY-MM-DD` (or
// `## x.y.z — Unreleased`) heading per release, newest first, each with `### Breaking changes`
// (bullets naming the operation or event and the member) and then `### Other changes`.
import type { ContractChange } from "./classify.js";

export interface Release {
  version: string;
  major: number;
  /** YYYY-MM-DD, or null while unreleased. */
  date: string | null;
  /** The bullets of its `### Breaking changes` section, as written. */
  breaking: string[];
  /** 1-based line of its heading. */
  line: number;
}

export interface Changelog {
  releases: Release[];
  /** Lines that look like a release heading or subsection but do not follow the format. */
  problems: string[];
}

const HEADING = /^## (\d+)\.(\d+)\.(\d+) — (Unreleased|\d{4}-\d{2}-\d{2})$/;
const SUBSECTIONS = new Set(["### Breaking changes", "### Other changes"]);

/** Parse CHANGELOG.md text into its releases, newest first, and any lines that break the format. */
export function parseChangelog(text: string): Changelog {
  const releases: Release[] = [];
  const problems: string[] = [];
  let current: Release | undefined;
  let section = "";
  let bullet: string[] | undefined;
  const lines = text.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const line = raw.trimEnd();
    if (line.startsWith("## ")) {
      const m = HEADING.exec(line);
      if (!m) {
        problems.push(
          `line ${i + 1}: a release heading is "## x.y.z — YYYY-MM-DD" or "## x.y.z — Unreleased"`,
        );
        current = undefined;
        continue;
      }
      current = {
        version: `${m[1]}.${m[2]}.${m[3]}`,
        major: Number(m[1]),
        date: m[4] === "Unreleased" ? null : m[4]!,
        breaking: [],
        line: i + 1,
      };
      releases.push(current);
      section = "";
      bullet = undefined;
    } else if (line.startsWith("### ")) {
      if (!SUBSECTIONS.has(line))
        problems.push(
          `line ${i + 1}: a release's subsections are "### Breaking changes" and "### Other changes"`,
        );
      section = line;
      bullet = undefined;
    } else if (current && section === "### Breaking changes") {
      // A bullet may wrap onto indented lines.
      if (/^[-*] /.test(line)) {
        bullet = [line.slice(2)];
        current.breaking.push("");
      } else if (bullet && /^\s+\S/.test(line)) bullet.push(line.trim());
      else if (line === "") bullet = undefined;
      if (bullet) current.breaking[current.breaking.length - 1] = bullet.join(" ");
    }
  }
  return { releases, problems };
}

/** The text in backticks within a string. */
const codeSpans = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
const plain = (text: string) => text.replace(/`/g, "");

/** The member's own name in a change: `reference` in "request body member `reference`". */
const memberToken = (change: ContractChange) => (change.member ? codeSpans(change.member).at(-1) : undefined);

/**
 * Whether a bullet records a change: it names the change's operation or event, and — when it names
 * members in backticks at all — the change's member among them. A bullet naming only the operation
 * or event records every change of it.
 */
export function isRecordedBy(change: ContractChange, bullet: string): boolean {
  const where = plain(change.where);
  const text = plain(bullet);
  let at = text.indexOf(where);
  while (at >= 0) {
    // "POST /a" must not match inside "POST /a/{id}".
    const next = text[at + where.length];
    if (next === undefined || !/[\w/{}.-]/.test(next)) break;
    at = text.indexOf(where, at + 1);
  }
  if (at < 0) return false;
  const whereTokens = new Set(codeSpans(change.where));
  // Operations (`POST /…`) and event names in a bullet are not members.
  const members = codeSpans(bullet).filter((t) => !whereTokens.has(t) && !OPERATION.test(t));
  if (members.length === 0) return true;
  const own = memberToken(change);
  return own !== undefined && members.some((t) => covers(t, own));
}

const OPERATION = /^[A-Z]+ \//;

/** A member named in a bullet covers itself, what lies under it, and a path ending in it. */
const covers = (named: string, member: string) =>
  member === named ||
  member.startsWith(`${named}.`) ||
  member.startsWith(`${named}[`) ||
  member.endsWith(`.${named}`);

/** A bullet a reviewer can paste under `### Breaking changes` to record a change. */
export const suggestedBullet = (change: ContractChange): string =>
  `- ${change.text.replace(/^([A-Z]+ \/\S*):/, "`$1`:")}`;
