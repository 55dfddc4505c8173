import type { ValidateFunction } from "ajv";
import { AjvCompiler } from "./ajv-compiler.js";
import { resolveRef } from "./resolve-ref.js";

// An AsyncAPI document is walked structurally.
export type Json = any;

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
}

const esc = (s: string): string => s.replace(/~/g, "~0").replace(/\//g, "~1");

/** The AsyncAPI 3 contract compiled for checking deliveries. */
export class AsyncApiModel {
  readonly messages: MessageModel[] = [];
  readonly defaultContentType: string;
  private readonly compiler: AjvCompiler;

  constructor(readonly document: Json) {
    this.compiler = new AjvCompiler(document);
    this.defaultContentType = String(document.defaultContentType ?? "application/json").toLowerCase();
    for (const [channelId, channel] of Object.entries<Json>(document.channels ?? {})) {
      const channelMessages: MessageModel[] = [];
      for (const [messageId, raw] of Object.entries<Json>(channel?.messages ?? {})) {
        const base = `/channels/${esc(channelId)}/messages/${esc(messageId)}`;
        const message = this.resolve(raw, base);
        channelMessages.push(this.message(channelId, messageId, message.node, message.pointer));
      }
      const envelope = this.sharedEnvelope(channelMessages);
      for (const m of channelMessages) m.envelopePointer = envelope;
      this.messages.push(...channelMessages);
    }
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

  private message(channel: string, id: string, message: Json, pointer: string): MessageModel {
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
