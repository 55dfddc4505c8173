// Small real files made as bytes: a PDF, a PNG (zlib-compressed pixels, CRC-checked chunks), a
// baseline JPEG (one 8×8 grey block, its DC value chosen) and UTF-8 text. A few hundred bytes each,
// so that an upload stays far below any size limit while a decoder on the other side can read it.
import { deflateSync } from "node:zlib";
import { PROBE_PDF } from "../request-body.js";

/** The file formats made here, by the media type the contract names them with. */
export type FileFormat = "application/pdf" | "image/png" | "image/jpeg" | "text/plain";

/** The extensions of each format, as an upload names its file. */
export const EXTENSIONS: Record<FileFormat, string[]> = {
  "application/pdf": ["pdf"],
  "image/png": ["png"],
  "image/jpeg": ["jpg", "jpeg"],
  "text/plain": ["txt"],
};

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** CRC-32 as PNG chunks carry it. */
function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([head, body, crc]);
}

/** A PNG of `side`×`side` grey pixels of one level (8-bit greyscale). */
export function pngFile(side: number, level: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header.set([8, 0, 0, 0, 0], 8);
  // Each scanline: filter type 0, then the row's pixels.
  const rows = Buffer.concat(
    Array.from({ length: side }, () => Buffer.from([0, ...Array(side).fill(level & 0xff)])),
  );
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", header),
    pngChunk("IDAT", deflateSync(rows)),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

/** The bits of a DC difference in its JPEG category (magnitude bits, ones' complement when negative). */
function dcBits(diff: number): { category: number; bits: string } {
  const category = diff === 0 ? 0 : Math.floor(Math.log2(Math.abs(diff))) + 1;
  const raw = diff >= 0 ? diff : diff + (1 << category) - 1;
  return { category, bits: category === 0 ? "" : raw.toString(2).padStart(category, "0") };
}

/** One Huffman table of a single 1-bit code (`0`) for one symbol. */
const oneCodeTable = (tableClass: number, symbol: number) =>
  Buffer.from([0xff, 0xc4, 0x00, 0x14, tableClass, 1, ...Array(15).fill(0), symbol]);

/** A baseline JPEG of one 8×8 grey block; `level` (0–255) sets its grey. */
export function jpegFile(level: number): Buffer {
  const dc = Math.max(-1016, Math.min(1016, Math.round((Math.max(0, Math.min(255, level)) - 128) * 8)));
  const { category, bits } = dcBits(dc);
  // The DC code (`0`), its bits, the AC end of block (`0`), padded with ones to a byte.
  let stream = `0${bits}0`;
  stream = stream.padEnd(Math.ceil(stream.length / 8) * 8, "1");
  const data: number[] = [];
  for (let i = 0; i < stream.length; i += 8) {
    const byte = parseInt(stream.slice(i, i + 8), 2);
    data.push(byte);
    if (byte === 0xff) data.push(0x00);
  }
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    Buffer.from([0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, 0, 1, 0, 1, 0, 0]),
    Buffer.from([0xff, 0xdb, 0x00, 0x43, 0x00, ...Array(64).fill(1)]),
    Buffer.from([0xff, 0xc0, 0x00, 0x0b, 8, 0, 8, 0, 8, 1, 1, 0x11, 0]),
    oneCodeTable(0x00, category),
    oneCodeTable(0x10, 0x00),
    Buffer.from([0xff, 0xda, 0x00, 0x08, 1, 1, 0x00, 0, 63, 0]),
    Buffer.from(data),
    Buffer.from([0xff, 0xd9]),
  ]);
}

/** A PDF: the probe's own, with a comment line of its own so that uploads differ. */
export function pdfFile(note: string): Buffer {
  const ascii = note.replace(/[^ -~]/g, "?");
  return Buffer.concat([
    PROBE_PDF.subarray(0, 9),
    Buffer.from(`%${ascii}\n`, "latin1"),
    PROBE_PDF.subarray(9),
  ]);
}

/** A file of a format, its content varied by `seed` (a grey level, a note, a text). */
export function makeFile(format: FileFormat, seed: number, text: string): Buffer {
  switch (format) {
    case "image/png":
      return pngFile(1 + (seed % 8), seed);
    case "image/jpeg":
      return jpegFile(seed);
    case "text/plain":
      return Buffer.from(`${text}\n`, "utf8");
    default:
      return pdfFile(text);
  }
}
