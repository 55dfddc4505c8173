import type { ValidateFunction } from "ajv";
import { AjvCompiler } from "../../src/contract/ajv-compiler.js";
import { escapeToken } from "../../src/contract/json-pointer.js";
import { resolveRef } from "../../src/contract/resolve-ref.js";
import type { Json } from "../../src/contract/json.js";
export type { Json } from "../../src/contract/json.js";

/** A value a message pins (a `const`, or an enum of one): how a delivery is told apart from others. */
export interface Discriminator {
  in: "body" | "header";
  /** A body member name, or a header name lower-cased. */
  name: string;
  /** The header name as the contract writes it. */
  label: string;
  value: unknown;
}

/** One message of one channel, resolved once. */
export interface MessageModel {
  channel: string;
  id: string;
  /** Where the message sits under its channel: `/channels/c/messages/m`. */
  location: string;
  /** `channel:message`, the name a report gives the delivery. */
  key: string;
  contentType: string;
  payloadPointer?: string;
  payload?: Json;
  headersPointer?: string;
  /** Header names the headers schema requires, as the contract writes them. */
  requiredHeaders: string[];
  /** Header names the headers schema describes: lower-cased → as written. */
  headerNames: Map<string, string>;
  discriminators: Discriminator[];
  /** The schema every message of the channel builds on (its `allOf` `$ref`), if they share one. */
  envelopePointer?: string;
  /** `requiredHeaders` with their keys; see AsyncApiModel.requiredHeadersOf. */
  requiredHeaderKeys?: RequiredHeader[];
}

/** A header a message requires: its name as the contract writes it, and as recorded headers are keyed. */
export interface RequiredHeader {
  name: string;
  key: string;
}

/** A channel whose deliveries name their type: what a delivery of a type it does not describe is told by. */
export interface ChannelModel {
  id: string;
  /** Its messages, in document order. */
  messages: MessageModel[];
  /** The first of them: its envelope and required headers are what a delivery of a new type must have. */
  first: MessageModel;
  /** The value that names a delivery's type: the primary marker of its first message. */
  marker: Discriminator;
  /** The values its messages give the marker, without repeats; see AsyncApiModel.knownTypes. */
  knownTypes?: string[];
}

/** The value that names a message's type: a pinned header when there is one (a type header), else a body member. */
function primaryMarker(m: MessageModel | undefined): Discriminator | undefined {
  return m?.discriminators.find((d) => d.in === "header") ?? m?.discriminators[0];
}

/** The AsyncAPI 3 contract compiled for checking deliveries. */
export class AsyncApiModel {
  readonly messages: MessageModel[] = [];
  /** The channels whose first message has a marker, in document order. */
  readonly channels: ChannelModel[] = [];
  /** What names the type of each message (`header X` or `body member x`), without repeats. */
  readonly markers: string[];
  readonly defaultContentType: string;
  private readonly compiler: AjvCompiler;

  constructor(readonly document: Json) {
    this.compiler = new AjvCompiler(document);
    this.defaultContentType = String(document.defaultContentType ?? "application/json").toLowerCase();
    for (const [channelId, channel] of Object.entries<Json>(document.channels ?? {})) {
      const channelMessages: MessageModel[] = [];
      for (const [messageId, raw] of Object.entries<Json>(channel?.messages ?? {})) {
        const base = `/channels/${escapeToken(channelId)}/messages/${escapeToken(messageId)}`;
        const message = this.resolve(raw, base);
        channelMessages.push({
          ...this.message(channelId, messageId, message.node, message.pointer),
          location: base,
        });
      }
      const envelope = this.sharedEnvelope(channelMessages);
      for (const m of channelMessages) m.envelopePointer = envelope;
      this.messages.push(...channelMessages);
      const first = channelMessages[0];
      const marker = primaryMarker(first);
      if (first && marker) this.channels.push({ id: channelId, messages: channelMessages, first, marker });
    }
    this.markers = [
      ...new Set(
        this.messages
          .map(primaryMarker)
          .flatMap((d) => (d ? [d.in === "header" ? `header ${d.label}` : `body member ${d.label}`] : [])),
      ),
    ];
  }

  // The two below are worked out on first use, not here: a contract value they cannot be made from
  // (a non-string header name, say) then fails only the deliveries that need it, as it always has.

  /** The values a channel's messages give its marker, as a report shows them, without repeats. */
  knownTypes(channel: ChannelModel): string[] {
    return (channel.knownTypes ??= [
      ...new Set(
        channel.messages.map((m) =>
          String(m.discriminators.find((d) => d.name === channel.marker.name)?.value),
        ),
      ),
    ]);
  }

  /** The headers a message's headers schema requires, with the keys recorded headers have. */
  requiredHeadersOf(m: MessageModel): RequiredHeader[] {
    return (m.requiredHeaderKeys ??= m.requiredHeaders.map((name) => ({ name, key: name.toLowerCase() })));
  }

  /** The validator of the schema at a pointer, compiled on first use. */
  validator(pointer: string): ValidateFunction {
    return this.compiler.validator(pointer);
  }

  /** Follow local `$ref`s, keeping track of where the node really sits. */
  resolve(node: Json, pointer: string): { node: Json; pointer: string } {
    return resolveRef(this.document, node, pointer);
  }

  /** Every schema an object schema is made of: itself and its allOf branches, $refs followed. */
  private parts(schema: Json, depth = 0): Json[] {
    const node = this.resolve(schema, "").node;
    if (!node || typeof node !== "object" || depth > 16) return [];
    return [node, ...(node.allOf ?? []).flatMap((s: Json) => this.parts(s, depth + 1))];
  }

  private pinned(schema: Json): unknown[] | undefined {
    const node = this.resolve(schema, "").node;
    if (node?.const !== undefined) return [node.const];
    if (Array.isArray(node?.enum) && node.enum.length === 1) return node.enum;
    return undefined;
  }

  private message(
    channel: string,
    id: string,
    message: Json,
    pointer: string,
  ): Omit<MessageModel, "location"> {
    const discriminators: Discriminator[] = [];
    const headerNames = new Map<string, string>();
    const requiredHeaders: string[] = [];
    for (const part of message.payload ? this.parts(message.payload) : []) {
      for (const [name, sub] of Object.entries<Json>(part.properties ?? {})) {
        const value = this.pinned(sub);
        if (value) discriminators.push({ in: "body", name, label: name, value: value[0] });
      }
    }
    for (const part of message.headers ? this.parts(message.headers) : []) {
      for (const name of part.required ?? []) if (!requiredHeaders.includes(name)) requiredHeaders.push(name);
      for (const [name, sub] of Object.entries<Json>(part.properties ?? {})) {
        headerNames.set(name.toLowerCase(), name);
        const value = this.pinned(sub);
        if (value)
          discriminators.push({ in: "header", name: name.toLowerCase(), label: name, value: value[0] });
      }
    }
    return {
      channel,
      id,
      key: `${channel}:${id}`,
      contentType: String(message.contentType ?? this.defaultContentType).toLowerCase(),
      payloadPointer: message.payload ? `${pointer}/payload` : undefined,
      payload: message.payload,
      headersPointer: message.headers ? `${pointer}/headers` : undefined,
      requiredHeaders,
      headerNames,
      discriminators,
    };
  }

  private sharedEnvelope(messages: MessageModel[]): string | undefined {
    const refs = messages.map((m) => {
      const payload = m.payload ? this.resolve(m.payload, "").node : undefined;
      const ref = payload?.allOf?.find((s: Json) => typeof s?.$ref === "string")?.$ref;
      return typeof ref === "string" ? ref : undefined;
    });
    const first = refs[0];
    return first && refs.every((r) => r === first) ? first.slice(1) : undefined;
  }
}
