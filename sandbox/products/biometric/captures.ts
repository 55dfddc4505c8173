// The captures of a biometric verification (document images, the liveness video, the extracted
// face), served by the sandbox as object storage serves them: pre-signed GET URLs that need no
// credentials and expire 15 minutes after they were signed, on the virtual clock; then 403 with an
// S3-style XML error. The bytes are placeholders of the right media types.
import { createHmac, createSecretKey, randomBytes, timingSafeEqual } from "node:crypto";
import type { Answer } from "../../../src/server/answer.js";

/** Where the sandbox serves captures: a stand-in for object storage, outside the service's API. */
export const CAPTURES_PREFIX = "/_captures";

/** "Pre-signed asset URLs (images, video) need no credentials and expire after 15 minutes." */
export const CAPTURE_VALIDITY_SECONDS = 900;

/**
 * The key the URLs are signed with: this process's own, so a URL cannot be edited to live longer.
 * A sandbox restarted from --state signs anew; URLs it sent before are refused, as expired ones are.
 */
// A KeyObject: Node 24 takes a slower path for an HMAC keyed by a Buffer, on every URL signed.
const SIGNING_KEY = createSecretKey(randomBytes(32));

/** A 1×1 baseline JPEG (JFIF), decoded by browsers and image libraries alike. */
const JPEG = Buffer.from(
  "/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////" +
    "////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=",
  "base64",
);

/** An ISO base-media box: its 32-bit size, its type, its body. */
function box(type: string, ...body: Buffer[]): Buffer {
  const content = Buffer.concat(body);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + content.length, 0);
  head.write(type, 4, "latin1");
  return Buffer.concat([head, content]);
}

/** An MP4 (ISO/IEC 14496-14) of no duration: `ftyp`, then `moov` with its movie header. */
function placeholderMp4(): Buffer {
  const ftyp = box(
    "ftyp",
    Buffer.from("isom", "latin1"),
    Buffer.from([0, 0, 2, 0]),
    Buffer.from("isomiso2mp41", "latin1"),
  );
  const mvhd = Buffer.alloc(100);
  // version 0, flags 0; creation and modification 0; timescale 1000; duration 0; rate 1.0; volume 1.0.
  mvhd.writeUInt32BE(1000, 12);
  mvhd.writeUInt32BE(0x00010000, 20);
  mvhd.writeUInt16BE(0x0100, 24);
  // The unity matrix (16.16, 16.16, 2.30 fixed point), then the next track id.
  for (const [at, value] of [
    [36, 0x00010000],
    [52, 0x00010000],
    [68, 0x40000000],
  ] as const)
    mvhd.writeUInt32BE(value, at);
  mvhd.writeUInt32BE(1, 96);
  return Buffer.concat([ftyp, box("moov", box("mvhd", mvhd))]);
}

const MP4 = placeholderMp4();

/** The media type and bytes of a capture by its file name's extension. */
const MEDIA = new Map<string, { type: string; bytes: Buffer }>([
  ["jpg", { type: "image/jpeg", bytes: JPEG }],
  ["mp4", { type: "video/mp4", bytes: MP4 }],
]);

/** `20261122T094500Z`: X-Amz-Date's form of an instant. */
const amzDate = (at: number): string =>
  new Date(at)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");

/** The instant of an X-Amz-Date, or undefined when it is not one. */
function parseAmzDate(text: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  if (!m) return undefined;
  const at = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
  return Number.isFinite(at) && amzDate(at) === text ? at : undefined;
}

const sign = (key: string, date: string): string =>
  createHmac("sha256", SIGNING_KEY).update(`${key}\n${date}`).digest("hex");

/** A capture object read once: each URL member's file name, or a member kept as it is, or members within. */
type CaptureShape = { name: string } & ({ file: string } | { kept: true } | { members: CaptureShape[] });

/** The shape of a capture object: which members are URLs of which file (read once per template, not per URL signed). */
function captureShape(capture: object): CaptureShape[] {
  return Object.entries(capture).map(([name, value]): CaptureShape => {
    if (typeof value === "string") {
      const file = /\/([\w-]+\.(?:jpg|mp4))(?:\?|$)/.exec(value)?.[1];
      return file ? { name, file } : { name, kept: true };
    }
    return value === null || typeof value !== "object"
      ? { name, kept: true }
      : { name, members: captureShape(value as object) };
  });
}

/** A capture URL of this sandbox, signed at `date`: the query URLSearchParams would write (no member needs escaping). */
function signedUrl(baseUrl: string, key: string, date: string): string {
  const query =
    `X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=${date}&X-Amz-Expires=${CAPTURE_VALIDITY_SECONDS}` +
    `&X-Amz-SignedHeaders=host&X-Amz-Signature=${sign(key, date)}`;
  return `${baseUrl}${CAPTURES_PREFIX}/${key}?${query}`;
}

/** `capture` (shaped as the template) with its URLs signed; its other members as they are. */
function signedMembers(
  shape: readonly CaptureShape[],
  capture: Record<string, unknown>,
  baseUrl: string,
  id: string,
  date: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const member of shape) {
    const value = capture[member.name];
    out[member.name] =
      "file" in member
        ? signedUrl(baseUrl, `${id}/${member.file}`, date)
        : "members" in member
          ? signedMembers(member.members, value as Record<string, unknown>, baseUrl, id, date)
          : value;
  }
  return out;
}

/**
 * A verification's capture URLs, signed now: each URL of a copy of the template (the contract
 * example's `capture`) replaced by one of this sandbox for the same file name; its other members
 * (a null video) as the copy has them. The template's shape is read once; each call signs anew.
 */
export function captureSigner(
  template: unknown,
): (capture: unknown, baseUrl: string, transactionId: string, now: number) => unknown {
  if (template === null || typeof template !== "object") return (capture) => capture;
  const shape = captureShape(template);
  return (capture, baseUrl, transactionId, now) =>
    signedMembers(
      shape,
      capture as Record<string, unknown>,
      baseUrl,
      encodeURIComponent(transactionId),
      amzDate(now),
    );
}

/** An answer in object storage's words: its XML error document. */
const storageError = (status: number, code: string, message: string): Answer => ({
  status,
  bytes: Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>\n`,
  ),
  headers: { "content-type": "application/xml" },
});

/**
 * Answer a GET or HEAD under CAPTURES_PREFIX: the placeholder bytes while the URL's signature holds
 * and its 15 minutes have not passed on the virtual clock; 403 after (AccessDenied, or
 * SignatureDoesNotMatch for an edited URL); 404 NoSuchKey for a file the verification does not
 * have, or once it is archived (its data erased).
 */
export function answerCapture(
  method: string,
  pathname: string,
  query: string,
  now: number,
  exists: (transactionId: string) => boolean,
): Answer {
  if (method !== "GET" && method !== "HEAD")
    return {
      ...storageError(405, "MethodNotAllowed", "The specified method is not allowed."),
      headers: { "content-type": "application/xml", allow: "GET, HEAD" },
    };
  const [rawId = "", file = "", ...more] = pathname.slice(CAPTURES_PREFIX.length + 1).split("/");
  const media = MEDIA.get(file.split(".").pop() ?? "");
  let transactionId: string | undefined;
  try {
    transactionId = decodeURIComponent(rawId);
  } catch {
    transactionId = undefined;
  }
  if (
    more.length > 0 ||
    !/^[\w-]+\.(jpg|mp4)$/.test(file) ||
    !media ||
    !transactionId ||
    !exists(transactionId)
  )
    return storageError(404, "NoSuchKey", "The specified key does not exist.");
  const params = new URLSearchParams(query);
  const date = params.get("X-Amz-Date") ?? "";
  const signature = Buffer.from(params.get("X-Amz-Signature") ?? "");
  const expected = Buffer.from(sign(`${rawId}/${file}`, date));
  const signedAt = parseAmzDate(date);
  if (
    signedAt === undefined ||
    params.get("X-Amz-Expires") !== String(CAPTURE_VALIDITY_SECONDS) ||
    signature.length !== expected.length ||
    !timingSafeEqual(signature, expected)
  )
    return storageError(
      403,
      "SignatureDoesNotMatch",
      "The request signature we calculated does not match the signature you provided.",
    );
  if (now > signedAt + CAPTURE_VALIDITY_SECONDS * 1000)
    return storageError(403, "AccessDenied", "Request has expired");
  return {
    status: 200,
    bytes: media.bytes,
    headers: { "content-type": media.type, "cache-control": "private, max-age=0" },
  };
}
