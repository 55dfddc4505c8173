// The bench's NDJSON corpus lines as HAR 1.2: entries for the streaming-memory runs, and whole files for the
// peers that read HAR only.
import { createWriteStream } from "node:fs";

/** A corpus line (NDJSON) as a HAR 1.2 entry, for the streaming-memory runs and the peers that read HAR. */
export function harEntry(line: string): string {
  const x = JSON.parse(line);
  const content = (m: {
    body?: string;
    bodyEncoding?: string;
    headers?: { name: string; value: string }[];
  }) => ({
    size: m.body === undefined ? 0 : m.body.length,
    mimeType: m.headers?.find((h) => h.name.toLowerCase() === "content-type")?.value ?? "",
    ...(m.body === undefined ? {} : { text: m.body }),
    ...(m.bodyEncoding ? { encoding: m.bodyEncoding } : {}),
  });
  const request = x.request;
  return JSON.stringify({
    startedDateTime: "2026-11-22T09:30:00.000Z",
    time: 12,
    request: {
      method: request.method,
      url: request.url,
      httpVersion: "HTTP/1.1",
      headers: request.headers,
      queryString: [],
      cookies: [],
      headersSize: -1,
      bodySize: request.body?.length ?? 0,
      ...(request.body === undefined ? {} : { postData: content(request) }),
    },
    response: x.response
      ? {
          status: x.response.status,
          statusText: "",
          httpVersion: "HTTP/1.1",
          headers: x.response.headers,
          cookies: [],
          content: content(x.response),
          redirectURL: "",
          headersSize: -1,
          bodySize: -1,
        }
      : {
          status: 0,
          statusText: "",
          httpVersion: "",
          headers: [],
          cookies: [],
          content: { size: 0, mimeType: "" },
          redirectURL: "",
          headersSize: -1,
          bodySize: -1,
        },
    cache: {},
    timings: { send: 0, wait: 12, receive: 0 },
  });
}

/** Write a HAR of about `bytes` bytes from the corpus lines, streaming. */
export async function writeHar(file: string, lines: string[], bytes: number): Promise<number> {
  const out = createWriteStream(file);
  const entries = lines.map(harEntry);
  out.write('{"log":{"version":"1.2","creator":{"name":"bench","version":"1"},"entries":[\n');
  let written = 0;
  let n = 0;
  while (written < bytes) {
    const entry = `${n === 0 ? "" : ",\n"}${entries[n % entries.length]}`;
    written += entry.length;
    n++;
    if (!out.write(entry)) await new Promise<void>((r) => out.once("drain", () => r()));
  }
  await new Promise<void>((r) => out.end("\n]}}\n", () => r()));
  return n;
}

/** Write a HAR holding each corpus line once, in order (entry i is line i). */
export function writeHarEntries(file: string, lines: string[]): Promise<void> {
  const text = lines.map(harEntry).join(",\n");
  return new Promise<void>((resolve, reject) => {
    const out = createWriteStream(file);
    out.on("error", reject);
    out.end(
      `{"log":{"version":"1.2","creator":{"name":"bench","version":"1"},"entries":[\n${text}\n]}}\n`,
      () => resolve(),
    );
  });
}
