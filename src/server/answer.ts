// One way the servers send an answer they made whole: JSON or bytes, always with its length.
import type { ServerResponse } from "node:http";

/** An answer made whole before it is sent: a JSON body, or bytes with their own headers. */
export interface Answer {
  status: number;
  json?: unknown;
  bytes?: Buffer;
  headers?: Record<string, string>;
}

/** Send an answer with its Content-Length (and JSON's Content-Type); a HEAD request gets the headers alone. */
export function sendAnswer(res: ServerResponse, method: string, answer: Answer): void {
  const body =
    answer.bytes ?? (answer.json === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(answer.json)));
  const headers: Record<string, string> = { ...answer.headers };
  if (answer.json !== undefined) headers["content-type"] = "application/json";
  headers["content-length"] = String(body.length);
  res.writeHead(answer.status, headers);
  res.end(method === "HEAD" ? undefined : body);
}
