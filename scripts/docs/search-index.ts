/**
 * The site-wide search index (assets/search-index.json): one entry per guide section, operation,
 * webhook event, gap group and release, with a link and plain text. docs/site/site.js searches it
 * in the browser; nothing is fetched from anywhere but the site itself.
 */
import type { GapGroup } from "./gaps-page.js";
import type { Guide } from "./guides.js";
import type { Json } from "../lib/json-ref.js";
import { isHttpMethod } from "../lib/http-methods.js";
import type { Journey } from "./journeys.js";
import type { Heading } from "./markdown.js";
import { operationLink } from "./reference-links.js";
import type { WebhookMessage } from "./webhooks-page.js";

export interface SearchEntry {
  /** What the entry is: "Guide", "Operation", "Webhook event", "Journey", "Gap", "Changelog". */
  kind: string;
  title: string;
  href: string;
  text: string;
}

/** Most text an entry keeps: enough for an excerpt around any word, bounded for the page. */
const MAX_TEXT = 1_500;

/** Markdown or HTML reduced to words: no markup, single spaces. */
export function plainText(text: string): string {
  return text
    .replace(/<[^>]*>/g, " ")
    .replace(/```[\w+-]*|~~~/g, " ")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[`*#>|]/g, " ")
    .replace(/-{3,}/g, " ")
    .replace(/&[a-z]+;/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, MAX_TEXT);
}

/** A guide's sections, split at its headings (outside fenced code) in the order renderMarkdown listed them. */
function guideEntries(guide: Guide): SearchEntry[] {
  const chunks: string[][] = [[]];
  let fenced = false;
  for (const line of guide.source.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (!fenced && /^#{1,6}\s/.test(line)) chunks.push([]);
    else chunks.at(-1)?.push(line);
  }
  const sections = chunks.slice(1);
  return guide.headings.map((heading: Heading, i) => ({
    kind: "Guide",
    title: heading.level === 1 ? guide.title : `${guide.page.label}: ${heading.text}`,
    href: heading.level === 1 ? guide.page.file : `${guide.page.file}#${heading.id}`,
    text: plainText((sections[i] ?? []).join("\n")),
  }));
}

/** Build the index from everything the site shows. */
export function buildSearchIndex(parts: {
  openapi: Json;
  guides: Guide[];
  messages: WebhookMessage[];
  gapGroups: GapGroup[];
  changelog: Heading[];
  journeys?: Journey[];
}): SearchEntry[] {
  const entries: SearchEntry[] = [];
  for (const guide of parts.guides) entries.push(...guideEntries(guide));
  for (const section of ["paths", "webhooks"] as const) {
    for (const [path, item] of Object.entries<Json>(parts.openapi[section] ?? {})) {
      for (const [method, op] of Object.entries<Json>(item ?? {})) {
        if (!isHttpMethod(method) || typeof op !== "object") continue;
        const label = section === "paths" ? `${method.toUpperCase()} ${path}` : `webhook ${path}`;
        entries.push({
          kind: section === "paths" ? "Operation" : "Webhook",
          title: `${label} · ${op.summary ?? ""} (${op.operationId ?? ""})`,
          href: operationLink(parts.openapi, section, path, method),
          text: plainText(`${op.operationId ?? ""} ${(op.tags ?? []).join(" ")} ${op.description ?? ""}`),
        });
      }
    }
  }
  for (const m of parts.messages) {
    entries.push({
      kind: "Webhook event",
      title: `${m.name}${m.message?.title ? ` · ${m.message.title}` : ""}`,
      href: `webhooks.html#${m.anchor}`,
      text: plainText(`${m.message?.summary ?? ""} ${m.message?.description ?? ""}`),
    });
  }
  for (const j of parts.journeys ?? []) {
    const steps = (j.workflow.steps ?? []).map((s: Json) => `${s.stepId} ${s.operationId}`).join(" ");
    entries.push({
      kind: "Journey",
      title: `${j.workflowId} · ${j.workflow.summary ?? ""}`,
      href: j.page.file,
      text: plainText(`${j.workflow.description ?? ""} ${steps}`),
    });
  }
  for (const group of parts.gapGroups) {
    entries.push({
      kind: "Gap",
      title: group.title,
      href: `gaps.html#${group.id}`,
      text: plainText(group.marks.map((m) => `${m.quote} ${m.choice}`).join(" ")),
    });
  }
  for (const heading of parts.changelog) {
    entries.push({ kind: "Changelog", title: heading.text, href: `changelog.html#${heading.id}`, text: "" });
  }
  return entries;
}
