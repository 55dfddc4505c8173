// A zip archive writer: deflated entries (node:zlib) in the plain PKWARE container, no zip64, no
// encryption: what the title search's document and plan need.
import { crc32, deflateRawSync } from "node:zlib";

/** One file of an archive. */
export interface ZipEntry {
  name: string;
  data: Buffer;
}

/** DOS date and time of a Date (local fields, as zip tools read them). */
function dosTime(date: Date): { time: number; day: number } {
  return {
    time: (date.getHours() << 11) | (date.getMinutes() << 5) | (date.getSeconds() >> 1),
    day: ((Math.max(date.getFullYear(), 1980) - 1980) << 9) | ((date.getMonth() + 1) << 5) | date.getDate(),
  };
}

/** What a local header and the central directory both say of an entry. */
interface EntryFields {
  time: number;
  day: number;
  crc: number;
  packed: number;
  size: number;
  name: Buffer;
}

/** The fields a local header and a central directory entry share, in the same order, from `at`. */
function writeEntryFields(header: Buffer, at: number, f: EntryFields): void {
  header.writeUInt16LE(20, at); // version needed: 2.0 (deflate)
  header.writeUInt16LE(0x0800, at + 2); // UTF-8 names
  header.writeUInt16LE(8, at + 4); // deflate
  header.writeUInt16LE(f.time, at + 6);
  header.writeUInt16LE(f.day, at + 8);
  header.writeUInt32LE(f.crc, at + 10);
  header.writeUInt32LE(f.packed, at + 14);
  header.writeUInt32LE(f.size, at + 18);
  header.writeUInt16LE(f.name.length, at + 22);
}

/** A zip archive of the entries, each deflated. */
export function renderZip(entries: readonly ZipEntry[], modified = new Date()): Buffer {
  const { time, day } = dosTime(modified);
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, "utf8");
    const packed = deflateRawSync(entry.data);
    const crc = crc32(entry.data);
    const fields: EntryFields = { time, day, crc, packed: packed.length, size: entry.data.length, name };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    writeEntryFields(local, 4, fields);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4); // made by: 2.0
    writeEntryFields(central, 6, fields);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, packed);
    centrals.push(central, name);
    offset += local.length + name.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
