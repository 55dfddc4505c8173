// The words a report may use: names the contract itself writes. A pointer token or a media type that
// is not one of them came from the input, and input holds personal data and credentials, so it is
// shown as `[redacted]`. Masking by shape (an `@`, a digit run) cannot know every secret; the
// contract can say what is not one.
import { walkContract } from "./contract/walk.js";
import { unescapeToken } from "./contract/json-pointer.js";
import { REDACTED } from "./redact.js";
import type { Json } from "./contract/json.js";

/** Media types common in traffic, shown by name even when the contract does not give them. */
const COMMON_MEDIA_TYPES = [
  "application/json",
  "application/xml",
  "application/octet-stream",
  "application/x-www-form-urlencoded",
  "application/pdf",
  "application/zip",
  "multipart/form-data",
  "text/plain",
  "text/html",
  "text/xml",
  "image/png",
  "image/jpeg",
];

/** Pointer tokens of every contract: the places a finding can point into. */
const STRUCTURAL = ["path", "query", "header", "cookie", "Content-Type"];

/** An array index as ajv writes it: short, so a digit-only key (a phone number) is not taken for one. */
const INDEX = /^(0|[1-9][0-9]{0,5})$/;

/**
 * What a report or recording may name: the contract's member, parameter and header names, media
 * types, the literal segments of its paths, and its enum and const string values.
 */
export class Vocabulary {
  private readonly words = new Set<string>(STRUCTURAL);
  private readonly mediaTypes = new Set<string>(COMMON_MEDIA_TYPES);
  private readonly values = new Set<string>();
  private readonly segments = new Set<string>();
  private collected = false;

  /** @param document an OpenAPI or AsyncAPI document; its names are collected when first needed */
  constructor(private readonly document: Json) {}

  /** Collect the names the document writes, once (iteratively: a `--spec` is input too). */
  private collect(): void {
    if (this.collected) return;
    this.collected = true;
    for (const template of Object.keys(this.document?.paths ?? {}))
      for (const segment of template.split("/")) if (!segment.includes("{")) this.segments.add(segment);
    walkContract([this.document], (node) => {
      for (const key of Object.keys(node)) {
        const value = node[key];
        if ((key === "properties" || key === "headers") && isObject(value))
          for (const name of Object.keys(value)) this.words.add(name);
        else if (key === "content" && isObject(value))
          for (const name of Object.keys(value)) this.mediaTypes.add(name.toLowerCase());
        else if (key === "contentType" || key === "defaultContentType") {
          if (typeof value === "string") this.mediaTypes.add(value.toLowerCase());
        } else if (key === "required" && Array.isArray(value)) {
          for (const name of value) if (typeof name === "string") this.words.add(name);
        } else if (key === "name" && typeof value === "string" && ("in" in node || node.type === "apiKey"))
          this.words.add(value);
        // An http security scheme names its header by its type (SecurityScheme.header).
        else if (key === "type" && value === "http" && "scheme" in node) this.words.add("Authorization");
        else if (key === "enum" && Array.isArray(value)) {
          for (const v of value) if (typeof v === "string") this.values.add(v);
        } else if (key === "const" && typeof value === "string") this.values.add(value);
      }
    });
  }

  /** Whether the contract writes this member, parameter or header name. */
  isName(name: string): boolean {
    this.collect();
    return this.words.has(name);
  }

  /** Whether the contract writes this string as an enum or const value. */
  isValue(value: string): boolean {
    this.collect();
    return this.values.has(value);
  }

  /** Whether this is a literal segment of one of the contract's paths (`api`, `outsource_cases`). */
  isSegment(segment: string): boolean {
    this.collect();
    return this.segments.has(segment);
  }

  /** A JSON pointer with every token the contract does not write (nor an array index) redacted. */
  pointer(pointer: string): string {
    if (pointer === "") return pointer;
    this.collect();
    const tokens = pointer.split("/");
    for (let i = 1; i < tokens.length; i++) {
      const token = tokens[i] as string;
      if (!INDEX.test(token) && !this.words.has(unescapeToken(token))) tokens[i] = REDACTED;
    }
    return tokens.join("/");
  }

  /** A recorded media type essence, or a stand-in when the contract and common traffic do not name it. */
  mediaType(essence: string | undefined): string {
    if (essence === undefined) return "(unreadable)";
    this.collect();
    return this.mediaTypes.has(essence) ? essence : "(an unlisted media type)";
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);
