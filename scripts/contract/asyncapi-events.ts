import { commentHeader } from "../lib/generated-header.js";
import { type Json, resolveRef } from "../lib/json-ref.js";
import { ASYNCAPI_COMMAND, ASYNCAPI_SOURCE } from "./asyncapi-bundle.js";

export const EVENTS_FILE = "generated/webhook-events.ts";

interface EventEntry {
  payload: string;
  headers?: string;
  /** The header names the message's headers schema declares, as the contract writes them. */
  headerNames?: string[];
  /** Those it requires. */
  requiredHeaders?: string[];
  schema: string;
}

interface ChannelEntry {
  eventIn: "payload" | "header";
  eventMember: string;
  events: Record<string, EventEntry>;
}

const SCHEMA_REF = /^#\/components\/schemas\/([A-Za-z0-9]+)$/;

/** The property names a schema declares, through `$ref` and `allOf` at any depth. */
function declaredProperties(document: Json, schema: Json): string[] {
  const node = resolveRef(document, schema);
  return [
    ...new Set([
      ...Object.keys(node?.properties ?? {}),
      ...(node?.allOf ?? []).flatMap((part: Json) => declaredProperties(document, part)),
    ]),
  ];
}

/** The property names a schema requires, through `$ref` and `allOf` at any depth. */
function requiredProperties(document: Json, schema: Json): string[] {
  const node = resolveRef(document, schema);
  return [
    ...new Set<string>([
      ...((node?.required ?? []) as string[]),
      ...(node?.allOf ?? []).flatMap((part: Json) => requiredProperties(document, part)),
    ]),
  ];
}

/** The `const` a schema puts on one member, looking through `$ref` and `allOf`. */
function constOf(document: Json, schema: Json, member: string): string | undefined {
  const node = resolveRef(document, schema);
  const own = resolveRef(document, node?.properties?.[member])?.const;
  if (typeof own === "string") return own;
  for (const part of node?.allOf ?? []) {
    const found = constOf(document, part, member);
    if (found) return found;
  }
  return undefined;
}

/**
 * How each channel names its events, and where each known event's schemas sit in the bundle.
 * A message whose headers fix a header's value is told apart by that header (workflow
 * deliveries); any other by the `event` member of its payload.
 */
function channelTable(document: Json): Record<string, ChannelEntry> {
  const table: Record<string, ChannelEntry> = {};
  for (const [channel, item] of Object.entries<Json>(document.channels ?? {})) {
    const entry: ChannelEntry = { eventIn: "payload", eventMember: "event", events: {} };
    for (const [key, message] of Object.entries<Json>(item.messages ?? {})) {
      const base = `/channels/${channel}/messages/${key}`;
      const schema = SCHEMA_REF.exec(message.payload?.$ref ?? "")?.[1];
      if (!schema)
        throw new Error(`${base}/payload must be a $ref to a shared schema (openapi/components/schemas)`);
      const headerNames = message.headers ? declaredProperties(document, message.headers) : [];
      const headerName = headerNames.find((h) => constOf(document, message.headers, h) !== undefined);
      const name = headerName
        ? constOf(document, message.headers, headerName)
        : constOf(document, message.payload, "event");
      if (!name) throw new Error(`${base}: no event name (a const on a header or on payload.event)`);
      if (headerName) Object.assign(entry, { eventIn: "header", eventMember: headerName });
      entry.events[name] = {
        payload: `${base}/payload`,
        ...(message.headers
          ? {
              headers: `${base}/headers`,
              headerNames,
              requiredHeaders: requiredProperties(document, message.headers),
            }
          : {}),
        schema,
      };
    }
    table[channel] = entry;
  }
  return table;
}

const q = (s: string) => JSON.stringify(s);

/** generated/webhook-events.ts: the channel table and the payload type of every known event. */
export function renderEventsModule(document: Json): string {
  const table = channelTable(document);
  const channels = Object.entries(table);
  const lines = [
    commentHeader("//", ASYNCAPI_SOURCE, ASYNCAPI_COMMAND).trimEnd(),
    'import type { components } from "./types.js";',
    "",
    'type Schemas = components["schemas"];',
    "",
    "/** The webhook channels, how each names its events, and where each known event's schemas sit in generated/asyncapi.json. */",
    "export const webhookChannels = {",
  ];
  for (const [channel, entry] of channels) {
    lines.push(`  ${channel}: {`);
    lines.push(`    eventIn: ${q(entry.eventIn)},`);
    lines.push(`    eventMember: ${q(entry.eventMember)},`);
    lines.push("    events: {");
    for (const [name, e] of Object.entries(entry.events)) {
      const headers = e.headers
        ? `, headers: ${q(e.headers)}, headerNames: [${(e.headerNames ?? []).map(q).join(", ")}]`
        : "";
      lines.push(`      ${q(name)}: { payload: ${q(e.payload)}${headers} },`);
    }
    lines.push("    },");
    lines.push("  },");
  }
  lines.push("} as const;", "");
  lines.push("/** The payload type of every known event, by channel and event name. */");
  lines.push("export interface WebhookPayloads {");
  for (const [channel, entry] of channels) {
    lines.push(`  ${channel}: {`);
    for (const [name, e] of Object.entries(entry.events))
      lines.push(`    ${q(name)}: Schemas[${q(e.schema)}];`);
    lines.push("  };");
  }
  lines.push("}", "");
  lines.push(
    "/** The headers each known event's message requires (never for an event whose message names none), by channel and event name. */",
  );
  lines.push("export interface WebhookRequiredHeaders {");
  for (const [channel, entry] of channels) {
    lines.push(`  ${channel}: {`);
    for (const [name, e] of Object.entries(entry.events)) {
      const required = e.requiredHeaders ?? [];
      lines.push(`    ${q(name)}: ${required.length > 0 ? required.map(q).join(" | ") : "never"};`);
    }
    lines.push("  };");
  }
  lines.push("}", "");
  return lines.join("\n");
}
