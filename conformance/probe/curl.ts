// A shell command that sends a request again. Credentials are shell variables (`$IDV_API_KEY`,
// `$IDV_API_SECRET`, `$IDV_RECEIVER_AUTH`…), never values, and a v4 signature is computed in the shell
// with openssl over the same date and bytes: a report can be pasted into a ticket.

/** A header of the reproducer: a literal value, or a shell word (a variable, a command). */
export type CurlHeader = [name: string, value: { literal: string } | { shell: string }];

/** What the reproducer sends. */
export interface CurlRequest {
  method: string;
  /** The URL, a shell variable holding it (`$IDV_WORKFLOW_URL`), or a shell word building it. */
  url: string | { shell: string };
  headers: CurlHeader[];
  /** The exact body bytes (kept in $BODY), or a shell command printing them (for huge bodies). */
  body?: Buffer | { shell: string };
  /**
   * Sign as v4 does: set $DATE and $SIG (HMAC-SHA256 keyed by $IDV_API_SECRET over "$DATE$BODY", plus
   * `extra` when the test signs other bytes), to use in headers as `$DATE` and `$SIG`.
   */
  sign?: { extra?: string };
}

/** A literal in single quotes. */
export const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** Bytes as a bash ANSI-C string ($'…'), every byte outside printable ASCII escaped. */
function ansiC(bytes: Buffer): string {
  let out = "$'";
  for (const b of bytes) {
    if (b === 0x27) out += "\\'";
    else if (b === 0x5c) out += "\\\\";
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else if (b === 0x0a) out += "\\n";
    else out += `\\x${b.toString(16).padStart(2, "0")}`;
  }
  return `${out}'`;
}

/** The command, one statement a line. */
export function curlCommand(request: CurlRequest): string {
  const lines: string[] = [];
  let data = "";
  if (request.body !== undefined) {
    if (Buffer.isBuffer(request.body)) {
      lines.push(`BODY=${ansiC(request.body)}`);
      data = ` --data-binary "$BODY"`;
    } else {
      data = ` --data-binary @<(${request.body.shell})`;
    }
  }
  if (request.sign) {
    lines.push("DATE=$(date -u +%Y-%m-%dT%H:%M:%S.000Z)");
    const extra = request.sign.extra ? shellQuote(request.sign.extra) : "";
    const body = Buffer.isBuffer(request.body) ? '"$BODY"' : "";
    lines.push(
      `SIG=$(printf '%s' "$DATE"${body}${extra} | openssl dgst -sha256 -hmac "$IDV_API_SECRET" -r | cut -d' ' -f1)`,
    );
  }
  const headers = request.headers
    .map(([name, value]) =>
      "literal" in value ? ` -H ${shellQuote(`${name}: ${value.literal}`)}` : ` -H "${name}: ${value.shell}"`,
    )
    .join("");
  const url =
    typeof request.url !== "string"
      ? request.url.shell
      : request.url.startsWith("$")
        ? `"${request.url}"`
        : shellQuote(request.url);
  lines.push(`curl -sS -i -X ${request.method} ${url}${headers}${data}`);
  return lines.join("\n");
}
