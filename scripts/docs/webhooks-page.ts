import { renderExtensions, renderGapMarks } from "./gap-marks.js";
import { escapeHtml, inlineMarkdown, jsonBlock, slug } from "./html.js";
import { type Json, refName, resolveRef } from "../lib/json-ref.js";
import { type ExpandedSchemas, renderSchemaTable } from "./schema-table.js";

/** One message of a channel, resolved, with the names a reader looks for. */
export interface WebhookMessage {
  channelId: string;
  key: string;
  message: Json;
  /** The event name: the message's `name`, else its key. */
  name: string;
  anchor: string;
}

/** Every message of every channel of an AsyncAPI 3.0 document, then any component message no channel uses. */
export function listMessages(document: Json): WebhookMessage[] {
  const out: WebhookMessage[] = [];
  const used = new Set<Json>();
  for (const [channelId, rawChannel] of Object.entries<Json>(document.channels ?? {})) {
    const channel = resolveRef(document, rawChannel);
    for (const [key, raw] of Object.entries<Json>(channel?.messages ?? {})) {
      const message = resolveRef(document, raw);
      used.add(message);
      out.push(describeMessage(channelId, key, message));
    }
  }
  for (const [key, raw] of Object.entries<Json>(document.components?.messages ?? {})) {
    const message = resolveRef(document, raw);
    if (!used.has(message)) out.push(describeMessage("", key, message));
  }
  return out;
}

function describeMessage(channelId: string, key: string, message: Json): WebhookMessage {
  const name = typeof message?.name === "string" ? message.name : key;
  return { channelId, key, message, name, anchor: slug(`${channelId || "other"}-${key}`) };
}

/** The webhooks page's content from an AsyncAPI 3.0 document: channels, operations, messages, security. */
export function renderWebhooksContent(document: Json): string {
  const version = String(document?.asyncapi ?? "");
  if (!version.startsWith("3."))
    throw new Error(`expected an AsyncAPI 3.x document, found asyncapi: "${version}"`);
  const messages = listMessages(document);
  const info = document.info ?? {};
  // One page, one memory of unfolded component schemas: each long table appears once.
  const expanded: ExpandedSchemas = new Map();
  const parts = [
    `<h1>${escapeHtml(info.title ?? "Webhooks")} <span class="version">${escapeHtml(info.version ?? "")}</span></h1>`,
    `<div class="lead">${inlineMarkdown(info.description)}</div>`,
    renderGapMarks(info),
    renderContents(document, messages),
    renderServers(document),
    ...Object.entries<Json>(document.channels ?? {}).map(([id, channel]) =>
      renderChannel(document, id, resolveRef(document, channel), messages, expanded),
    ),
    renderOtherMessages(document, messages, expanded),
    renderSecuritySchemes(document),
  ];
  return parts.filter(Boolean).join("\n");
}

/** The table of contents: an anchor per channel and per event, then the shared sections. */
function renderContents(document: Json, messages: WebhookMessage[]): string {
  const events = (channelId: string): string =>
    messages
      .filter((m) => m.channelId === channelId)
      .map(
        (m) =>
          `<li><a href="#${m.anchor}"><code>${escapeHtml(m.name)}</code></a>${m.message?.summary ? ` ${escapeHtml(m.message.summary)}` : ""}</li>`,
      )
      .join("");
  const channels = Object.entries<Json>(document.channels ?? {}).map(([id, raw]) => {
    const channel = resolveRef(document, raw);
    return `<li><a href="#${slug(`channel-${id}`)}">${escapeHtml(channel?.title ?? id)}</a><ul>${events(id)}</ul></li>`;
  });
  const others = events("");
  const tail = [
    ...(others ? [`<li><a href="#other-messages">Messages in no channel</a><ul>${others}</ul></li>`] : []),
    ...(Object.keys(document.servers ?? {}).length
      ? ['<li><a href="#servers">Receiver servers</a></li>']
      : []),
    ...(Object.keys(document.components?.securitySchemes ?? {}).length
      ? ['<li><a href="#security">Security schemes</a></li>']
      : []),
  ];
  return `<nav class="webhook-toc" id="events" aria-label="Contents"><strong>Contents</strong> <span class="meta">(${messages.length} events; payloads are folded: open one to read it)</span>
    <ul>${[...channels, ...tail].join("")}</ul></nav>`;
}

function renderServers(document: Json): string {
  const servers = Object.entries<Json>(document.servers ?? {});
  if (servers.length === 0) return "";
  return `<section id="servers"><h2>Servers</h2>${servers
    .map(([id, raw]) => {
      const server = resolveRef(document, raw);
      return `<h3>${escapeHtml(server.title ?? id)}</h3>
        <p><code>${escapeHtml(server.protocol ?? "")}://${escapeHtml(server.host ?? "")}${escapeHtml(server.pathname ?? "")}</code></p>
        ${inlineMarkdown(server.description)}${renderVariables(document, server.variables)}${renderSecurityList(document, server.security)}${renderGapMarks(server)}${renderExtensions(server)}`;
    })
    .join("")}</section>`;
}

function renderChannel(
  document: Json,
  id: string,
  channel: Json,
  messages: WebhookMessage[],
  expanded: ExpandedSchemas,
): string {
  const operations = Object.entries<Json>(document.operations ?? {})
    .map(([opId, raw]) => [opId, resolveRef(document, raw)] as const)
    .filter(([, op]) => resolveRef(document, op?.channel) === channel);
  const parameters = Object.entries<Json>(channel.parameters ?? {});
  return `<section class="channel" id="${slug(`channel-${id}`)}">
    <h2>${escapeHtml(channel.title ?? id)}</h2>
    <p class="meta">Channel <code>${escapeHtml(id)}</code>${channel.address ? `, address <code>${escapeHtml(channel.address)}</code>` : ""}</p>
    ${channel.summary ? `<p><strong>${escapeHtml(channel.summary)}</strong></p>` : ""}
    ${inlineMarkdown(channel.description)}
    ${renderGapMarks(channel)}${renderExtensions(channel)}
    ${
      parameters.length
        ? `<h3>Address parameters</h3><dl>${parameters
            .map(([name, raw]) => {
              const p = resolveRef(document, raw);
              return `<dt><code>${escapeHtml(name)}</code></dt><dd>${inlineMarkdown(p?.description)}${renderGapMarks(p)}</dd>`;
            })
            .join("")}</dl>`
        : ""
    }
    ${renderBindings(channel.bindings)}
    ${operations.map(([opId, op]) => renderOperation(document, opId, op, expanded)).join("")}
    ${messages
      .filter((m) => m.channelId === id)
      .map((m) => renderMessage(document, m, expanded))
      .join("")}
  </section>`;
}

function renderOperation(document: Json, id: string, op: Json, expanded: ExpandedSchemas): string {
  const sent = (op.messages ?? []).map(
    (raw: Json) => refName(raw) ?? resolveRef(document, raw)?.name ?? "message",
  );
  return `<div class="operation">
    <h3>Delivery: <code>${escapeHtml(id)}</code> <span class="badge">${escapeHtml(op.action ?? "")}</span></h3>
    ${op.title ? `<p><strong>${escapeHtml(op.title)}</strong></p>` : ""}
    ${op.summary ? `<p>${escapeHtml(op.summary)}</p>` : ""}
    ${inlineMarkdown(op.description)}
    ${sent.length ? `<p>Messages: ${sent.map((n: string) => `<code>${escapeHtml(n)}</code>`).join(", ")}</p>` : ""}
    ${renderSecurityList(document, op.security)}
    ${renderBindings(op.bindings)}
    ${op.reply ? `<h4>Reply</h4>${renderReply(document, op.reply, expanded)}` : ""}
    ${renderGapMarks(op)}${renderExtensions(op)}
  </div>`;
}

function renderReply(document: Json, raw: Json, expanded: ExpandedSchemas): string {
  const reply = resolveRef(document, raw);
  const messages = (reply?.messages ?? []).map((m: Json) => resolveRef(document, m));
  return `${inlineMarkdown(reply?.description)}${messages
    .map(
      (m: Json, i: number) =>
        `${m?.payload ? renderSchemaTable(document, m.payload, m.name ?? `reply ${i + 1}`, expanded) : ""}`,
    )
    .join("")}${renderGapMarks(reply)}`;
}

function renderMessage(document: Json, entry: WebhookMessage, expanded: ExpandedSchemas): string {
  const m = entry.message;
  const examples: Json[] = Array.isArray(m.examples) ? m.examples : [];
  return `<article class="message" id="${entry.anchor}">
    <h3><span class="badge">event</span> <code>${escapeHtml(entry.name)}</code>${m.title ? ` ${escapeHtml(m.title)}` : ""}</h3>
    ${m.summary ? `<p><strong>${escapeHtml(m.summary)}</strong></p>` : ""}
    ${inlineMarkdown(m.description)}
    ${(m.contentType ?? document.defaultContentType) ? `<p class="meta">Content type <code>${escapeHtml(m.contentType ?? document.defaultContentType)}</code></p>` : ""}
    ${renderGapMarks(m)}${renderExtensions(m)}
    ${m.headers ? folded("Headers", renderSchemaTable(document, m.headers, "Headers", expanded)) : ""}
    ${m.payload ? folded("Payload", renderSchemaTable(document, m.payload, "Payload", expanded)) : ""}
    ${m.correlationId ? `<p class="meta">Correlation id: <code>${escapeHtml(resolveRef(document, m.correlationId)?.location ?? "")}</code></p>` : ""}
    ${renderBindings(m.bindings)}
    ${examples.map(renderExample).join("")}
  </article>`;
}

/** A member table folded under its name: the page lists many long payloads. */
function folded(name: string, table: string): string {
  return `<details class="payload"><summary>${escapeHtml(name)}</summary>${table}</details>`;
}

/** One message example; short ones show at once, long ones (a full biometric result) fold. */
function renderExample(example: Json, index: number): string {
  const open = JSON.stringify(example ?? {}, null, 2).split("\n").length <= 40 ? " open" : "";
  return `<details class="example"${open}><summary>Example: ${escapeHtml(example?.name ?? example?.summary ?? index + 1)}</summary>
    ${example?.summary && example?.name ? `<p>${escapeHtml(example.summary)}</p>` : ""}
    ${example?.headers ? `<p>Headers</p>${jsonBlock(example.headers)}` : ""}
    ${example?.payload !== undefined ? `<p>Payload</p>${jsonBlock(example.payload)}` : ""}</details>`;
}

function renderOtherMessages(document: Json, messages: WebhookMessage[], expanded: ExpandedSchemas): string {
  const others = messages.filter((m) => m.channelId === "");
  if (others.length === 0) return "";
  return `<section id="other-messages"><h2>Messages in no channel</h2>${others.map((m) => renderMessage(document, m, expanded)).join("")}</section>`;
}

function renderSecurityList(document: Json, security: Json): string {
  const list: Json[] = Array.isArray(security) ? security : [];
  if (list.length === 0) return "";
  return `<p>Security (any one of): ${list
    .map((raw) => {
      const scheme = resolveRef(document, raw);
      const name = refName(raw) ?? scheme?.name ?? scheme?.type;
      return `<a href="#${slug(`security-${name}`)}"><code>${escapeHtml(name)}</code></a>`;
    })
    .join(", ")}</p>`;
}

function renderSecuritySchemes(document: Json): string {
  const schemes = Object.entries<Json>(document.components?.securitySchemes ?? {});
  if (schemes.length === 0) return "";
  const rows = schemes
    .map(([name, raw]) => {
      const s = resolveRef(document, raw);
      const how = [
        s.scheme && `scheme ${s.scheme}`,
        s.bearerFormat && `format ${s.bearerFormat}`,
        s.in && `in ${s.in}`,
        s.name && `name ${s.name}`,
      ]
        .filter(Boolean)
        .join(", ");
      return `<tr id="${slug(`security-${name}`)}"><td><code>${escapeHtml(name)}</code></td><td>${escapeHtml(s.type ?? "")}${how ? `<br><span class="meta">${escapeHtml(how)}</span>` : ""}</td><td>${inlineMarkdown(s.description)}${renderGapMarks(s)}${renderExtensions(s)}</td></tr>`;
    })
    .join("");
  return `<section id="security"><h2>Security schemes</h2>
    <table><thead><tr><th>Scheme</th><th>Type</th><th>Description</th></tr></thead><tbody>${rows}</tbody></table></section>`;
}

/** Protocol bindings in one line each ("http: method POST"); nested values stay JSON. */
function renderBindings(bindings: Json): string {
  const entries = Object.entries<Json>(bindings ?? {});
  if (entries.length === 0) return "";
  return `<p class="meta">Bindings: ${entries
    .map(([protocol, value]) => {
      const facts = Object.entries<Json>(value ?? {})
        .filter(([key]) => key !== "bindingVersion")
        .map(
          ([key, v]) =>
            `${escapeHtml(key)} <code>${escapeHtml(typeof v === "string" ? v : JSON.stringify(v))}</code>`,
        );
      return `${escapeHtml(protocol)}${facts.length ? `: ${facts.join(", ")}` : ""}`;
    })
    .join("; ")}</p>`;
}

function renderVariables(document: Json, variables: Json): string {
  const entries = Object.entries<Json>(variables ?? {});
  if (entries.length === 0) return "";
  return `<dl class="variables">${entries
    .map(([name, raw]) => {
      const v = resolveRef(document, raw);
      const examples = Array.isArray(v?.examples)
        ? ` e.g. ${v.examples.map((e: Json) => `<code>${escapeHtml(e)}</code>`).join(", ")}`
        : "";
      return `<dt><code>{${escapeHtml(name)}}</code></dt><dd>${escapeHtml(v?.description ?? "")}${examples}${renderGapMarks(v)}</dd>`;
    })
    .join("")}</dl>`;
}
