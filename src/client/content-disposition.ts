// Content-Disposition file names (RFC 6266): `filename*` (RFC 5987, percent-encoded with a charset)
// wins over `filename` (a token or a quoted string).

const PARAM = /;\s*([^\s=;]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)/g;

function decodeExtended(value: string): string | undefined {
  const match = /^([\w!#$%&+^`{}~-]+)'[^']*'(.*)$/.exec(value.trim());
  if (!match) return undefined;
  const [, charset = "", encoded = ""] = match;
  try {
    if (/^utf-8$/i.test(charset)) return decodeURIComponent(encoded);
    if (/^iso-8859-1$/i.test(charset)) {
      // Each %XX is one Latin-1 code point.
      return encoded.replace(/%([0-9a-f]{2})/gi, (_, hex: string) =>
        String.fromCharCode(Number.parseInt(hex, 16)),
      );
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** Strip any directory part, so a hostile name cannot point outside the caller's folder. */
const baseName = (name: string): string | undefined => {
  const base = name.split(/[/\\]/).pop()?.trim();
  return base && base !== "." && base !== ".." ? base : undefined;
};

/** The file name a Content-Disposition header carries, without any directory part; undefined if none. */
export function filenameFromContentDisposition(header: string | null | undefined): string | undefined {
  if (!header) return undefined;
  let plain: string | undefined;
  let extended: string | undefined;
  for (const [, rawName = "", rawValue = ""] of `;${header.replace(/^[^;]*/, "")}`.matchAll(PARAM)) {
    const name = rawName.toLowerCase();
    const value = rawValue.trim();
    if (name === "filename*") extended ??= decodeExtended(value);
    else if (name === "filename") {
      plain ??= value.startsWith('"') ? value.slice(1, -1).replace(/\\(.)/g, "$1") : value;
    }
  }
  const name = extended ?? plain;
  return name ? baseName(name) : undefined;
}
