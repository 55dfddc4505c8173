import { type GapMark, pointerTokens } from "./gaps.js";
import { escapeHtml, slug } from "./html.js";
import { type Json, resolveRef } from "../lib/json-ref.js";
import { isHttpMethod } from "../lib/http-methods.js";
import { operationLink } from "./reference-links.js";
import { listMessages } from "./webhooks-page.js";

/** One contract's marks, with how the page names it. */
export interface GapSource {
  title: string;
  file: string;
  /** Which page its places are on. */
  kind: "openapi" | "asyncapi";
  document: Json | null;
  /** null when the contract is not built yet. */
  marks: GapMark[] | null;
}

/** A link to a place on the site. */
export interface PlaceLink {
  label: string;
  href: string;
}

/** The marks of one place a reader looks for: an operation, an event, a shared schema, the document. */
export interface GapGroup {
  id: string;
  title: string;
  /** Where the place is shown; the first link is the group's own. */
  links: PlaceLink[];
  marks: GapMark[];
}

/** Every `$ref` reachable from a node, following refs through the document; iterative. */
export function reachableRefs(document: Json, node: Json): Set<string> {
  const seen = new Set<string>();
  const stack: Json[] = [node];
  while (stack.length) {
    const at = stack.pop();
    if (!at || typeof at !== "object") continue;
    if (typeof at.$ref === "string" && !seen.has(at.$ref)) {
      seen.add(at.$ref);
      try {
        stack.push(resolveRef(document, at));
      } catch {
        // A broken ref is the bundler's to report; it links nothing here.
      }
    }
    for (const value of Object.values<Json>(at)) if (value && typeof value === "object") stack.push(value);
  }
  return seen;
}

/** Group an OpenAPI contract's marks by operation, webhook, shared component or document part. */
function groupOpenapi(document: Json, marks: GapMark[]): GapGroup[] {
  const operations: { label: string; href: string; refs: Set<string> }[] = [];
  for (const section of ["paths", "webhooks"] as const) {
    for (const [path, item] of Object.entries<Json>(document[section] ?? {})) {
      for (const method of Object.keys(item ?? {}).filter(isHttpMethod)) {
        const label = section === "paths" ? `${method.toUpperCase()} ${path}` : `webhook ${path}`;
        operations.push({
          label,
          href: operationLink(document, section, path, method),
          refs: reachableRefs(document, item[method]),
        });
      }
    }
  }
  return groupMarks(marks, (tokens) => {
    const [head, second, third] = tokens;
    if ((head === "paths" || head === "webhooks") && second !== undefined && third && isHttpMethod(third)) {
      const label = head === "paths" ? `${third.toUpperCase()} ${second}` : `webhook ${second}`;
      const summary = document[head]?.[second]?.[third]?.summary;
      return {
        key: `${head}/${second}/${third}`,
        title: summary ? `${label} · ${summary}` : label,
        links: [{ label, href: operationLink(document, head, second, third) }],
      };
    }
    if (head === "components" && second && third) {
      const ref = `#/components/${second}/${third}`;
      const users = operations.filter((op) => op.refs.has(ref));
      const kind =
        second === "securitySchemes" ? "Security scheme" : second === "schemas" ? "Schema" : second;
      return {
        key: ref,
        title: `${kind} ${third}`,
        links:
          second === "securitySchemes"
            ? [{ label: "Authentication", href: "api.html#/section/authentication" }]
            : users.map((op) => ({ label: op.label, href: op.href })),
      };
    }
    if (head === "servers")
      return { key: "servers", title: "Servers", links: [{ label: "API reference", href: "api.html" }] };
    return { key: head ?? "", title: "The whole API", links: [{ label: "API reference", href: "api.html" }] };
  });
}

/** Group an AsyncAPI contract's marks by event (message), delivery channel, shared schema or document part. */
function groupAsyncapi(document: Json, marks: GapMark[]): GapGroup[] {
  const messages = listMessages(document);
  const messageLinks = messages.map((m) => ({
    message: m.message,
    link: { label: `event ${m.name}`, href: `webhooks.html#${m.anchor}` },
    refs: reachableRefs(document, m.message),
  }));
  const channelLink = (id: string): PlaceLink => ({
    label: `channel ${document.channels?.[id]?.title ?? id}`,
    href: `webhooks.html#${slug(`channel-${id}`)}`,
  });
  return groupMarks(marks, (tokens) => {
    const [head, second, third, fourth] = tokens;
    if (head === "channels" && second) {
      if (third === "messages" && fourth) {
        const message = resolveRef(document, document.channels[second].messages[fourth]);
        const entry = messageLinks.find((m) => m.message === message);
        if (entry) return { key: entry.link.href, title: entry.link.label, links: [entry.link] };
      }
      return { key: `channel/${second}`, title: channelLink(second).label, links: [channelLink(second)] };
    }
    if (head === "operations" && second) {
      const op = document.operations?.[second];
      const channelId =
        String(op?.channel?.$ref ?? "")
          .split("/")
          .pop() ?? "";
      return {
        key: `operation/${second}`,
        title: `delivery ${second}`,
        links: channelId ? [channelLink(channelId)] : [{ label: "Webhooks", href: "webhooks.html" }],
      };
    }
    if (head === "components" && second && third) {
      if (second === "messages") {
        const entry = messageLinks.find((m) => m.message === document.components.messages[third]);
        if (entry) return { key: entry.link.href, title: entry.link.label, links: [entry.link] };
      }
      const ref = `#/components/${second}/${third}`;
      const users = messageLinks.filter((m) => m.refs.has(ref)).map((m) => m.link);
      return {
        key: ref,
        title: `${second === "schemas" ? "Schema" : second} ${third}`,
        links: users.length ? users : [{ label: "Webhooks", href: "webhooks.html" }],
      };
    }
    if (head === "servers")
      return {
        key: "servers",
        title: "Receiver servers",
        links: [{ label: "Servers", href: "webhooks.html#servers" }],
      };
    return { key: head ?? "", title: "All webhooks", links: [{ label: "Webhooks", href: "webhooks.html" }] };
  });
}

function groupMarks(
  marks: GapMark[],
  place: (tokens: string[]) => { key: string; title: string; links: PlaceLink[] },
): GapGroup[] {
  const groups = new Map<string, GapGroup>();
  for (const mark of marks) {
    const { key, title, links } = place(pointerTokens(mark.pointer));
    const group = groups.get(key) ?? { id: "", title, links, marks: [] };
    group.marks.push(mark);
    groups.set(key, group);
  }
  return [...groups.values()];
}

/** The groups of one contract's marks. */
export function groupGaps(source: GapSource): GapGroup[] {
  if (!source.marks || !source.document) return [];
  const groups =
    source.kind === "openapi"
      ? groupOpenapi(source.document, source.marks)
      : groupAsyncapi(source.document, source.marks);
  return groups.map((g, i) => ({ ...g, id: `${source.kind}-${i + 1}-${slug(g.title)}` }));
}

/** The gaps page's content: per contract, the marks grouped by the place they touch, with a filter. */
export function renderGapsContent(sources: GapSource[]): string {
  const total = sources.reduce((n, source) => n + (source.marks?.length ?? 0), 0);
  const intro = `<h1>Gaps</h1>
    <p class="lead">Where the interface document leaves something out (&ldquo;not shown&rdquo;) or is ambiguous, the
    contracts make a choice and mark the place with <code>x-gap</code>: the document's exact words and the choice
    made. ${total} marks, grouped by the operation, event or shared schema they touch; each group links to its place.</p>
    <div class="gap-filter">
      <label for="gap-filter">Filter</label>
      <input type="search" id="gap-filter" placeholder="Type to narrow: an operation, a word of the document, a choice" autocomplete="off">
      <span id="gap-filter-count" class="meta" aria-live="polite">${total} of ${total} marks</span>
    </div>
    <ul class="toc">${sources
      .map(
        (source) =>
          `<li><a href="#${slug(source.title)}">${escapeHtml(source.title)}</a> (<code>${escapeHtml(source.file)}</code>): ${
            source.marks ? `${source.marks.length} marks` : "not built yet"
          }</li>`,
      )
      .join("")}</ul>`;
  return [intro, ...sources.map(renderSource)].join("\n");
}

/** Where a mark sits, without its group's own name: "responses › 200" under "POST /api/v4/pep_checks". */
function placeWithin(where: string, group: string | undefined): string {
  if (group && where === group) return "the operation";
  if (group && where.startsWith(`${group} › `)) return where.slice(group.length + 3);
  return where;
}

function renderSource(source: GapSource): string {
  const heading = `<h2 id="${slug(source.title)}">${escapeHtml(source.title)}</h2>`;
  if (!source.marks) {
    return `<section>${heading}<p class="notice"><code>${escapeHtml(source.file)}</code> does not exist yet, so its gaps are not listed. Build the contract and run <code>npm run docs</code> again.</p></section>`;
  }
  if (source.marks.length === 0) return `<section>${heading}<p>No marks.</p></section>`;
  const groups = groupGaps(source).map((group) => {
    const [own, ...others] = group.links;
    const title = own
      ? `<a class="gap-place" href="${escapeHtml(own.href)}">${escapeHtml(group.title)}</a>`
      : escapeHtml(group.title);
    const usedBy = others.length
      ? `<p class="meta">Also in: ${others.map((l) => `<a href="${escapeHtml(l.href)}">${escapeHtml(l.label)}</a>`).join(", ")}</p>`
      : "";
    return `<section class="gap-group" id="${group.id}">
      <h3>${title} <span class="meta">${group.marks.length === 1 ? "1 mark" : `${group.marks.length} marks`}</span></h3>${usedBy}
      <ul class="gap-list">${group.marks
        .map(
          (mark) => `<li class="gap-entry" title="${escapeHtml(mark.pointer || "/")}">
          <p class="gap-words"><span class="gap-where">${escapeHtml(placeWithin(mark.where, own?.label))}:</span>
          <q>${escapeHtml(mark.quote)}</q></p>
          <span class="gap-choice">Choice: ${escapeHtml(mark.choice)}</span></li>`,
        )
        .join("")}</ul>
    </section>`;
  });
  return `<section class="gap-source">${heading}${groups.join("\n")}</section>`;
}
