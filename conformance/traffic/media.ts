import type { RecordedBody } from "./exchange.js";

// Media types are compared by essence (`type/subtype`, RFC 9110 §8.3.1), never by prefix:
// `application/json-evil` is not `application/json`, and `image/` is not an image.

/** Whether a recorded essence is covered by a documented one (`image/\*` style wildcards allowed). */
export function mediaTypeMatches(recorded: string, documented: string): boolean {
  if (documented === recorded || documented === "*/*") return true;
  if (documented.endsWith("/*")) {
    const type = documented.slice(0, -1);
    return recorded.length > type.length && recorded.startsWith(type) && !recorded.includes("/", type.length);
  }
  return false;
}

const SIGNATURES = new Map<string, number[][]>(
  Object.entries({
    "application/pdf": [[0x25, 0x50, 0x44, 0x46, 0x2d]], // %PDF-
    "application/zip": [
      [0x50, 0x4b, 0x03, 0x04],
      [0x50, 0x4b, 0x05, 0x06], // empty archive
      [0x50, 0x4b, 0x07, 0x08], // spanned archive
    ],
    "image/png": [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
    "image/jpeg": [[0xff, 0xd8, 0xff]],
  }),
);

/** A readable form of a media type's signature, for messages. */
export function signatureLabel(mediaType: string): string | undefined {
  const first = SIGNATURES.get(mediaType)?.[0];
  if (!first) return undefined;
  return first.map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : `\\x${b.toString(16)}`)).join("");
}

/** The first bytes of a body (text is read as recorded, one char a byte). */
function leadingBytes(body: RecordedBody, n: number): number[] {
  if (body.kind === "bytes") return [...body.bytes.subarray(0, n)];
  if (body.kind === "text") {
    const out: number[] = [];
    for (let i = 0; i < Math.min(n, body.text.length); i++) out.push(body.text.charCodeAt(i));
    return out;
  }
  return [];
}

/**
 * Whether a body starts with its media type's signature: true, false, or undefined when the media
 * type has no known signature (then nothing can be said).
 */
export function hasSignature(body: RecordedBody, mediaType: string): boolean | undefined {
  const signatures = SIGNATURES.get(mediaType);
  if (!signatures) return undefined;
  if (body.kind === "json" || body.kind === "form") return false;
  const head = leadingBytes(body, 8);
  return signatures.some((sig) => sig.every((byte, i) => head[i] === byte));
}

/** The size of a body in bytes. */
export function bodySize(body: RecordedBody | undefined): number {
  if (!body) return 0;
  if (body.kind === "bytes") return body.bytes.length;
  if (body.kind === "text") return Buffer.byteLength(body.text);
  if (body.kind === "form") return body.parts.reduce((n, p) => n + p.size, 0);
  return 0;
}

/** The known signature a body opens with (a PDF's `%PDF-`), or undefined: what a recording may keep of it. */
export function leadingSignature(bytes: Uint8Array): Buffer | undefined {
  for (const signatures of SIGNATURES.values())
    for (const sig of signatures) if (sig.every((byte, i) => bytes[i] === byte)) return Buffer.from(sig);
  return undefined;
}
