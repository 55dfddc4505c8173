// A sandbox broken on purpose in one rule of a journey: a small front that forwards each request to
// the sandbox and changes the answers that rule governs. Each break is the sandbox going wrong in a
// way the document forbids, so that a run over arazzo/ has something to catch.
import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** An answer as the front passes it on. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Changes the answer to a request (method, path), or leaves it: the broken rule. */
export type Break = (method: string, path: string, answer: Answer) => Answer;

export interface BrokenFront {
  url: string;
  close(): Promise<void>;
}

/** The answer's JSON body changed by `edit`. */
export function editJson(answer: Answer, edit: (body: Record<string, unknown>) => void): Answer {
  const body = JSON.parse(answer.body.toString("utf8")) as Record<string, unknown>;
  edit(body);
  return { ...answer, body: Buffer.from(JSON.stringify(body)) };
}

/** Every byte of a message. */
async function bytesOf(message: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of message) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Changes the body of a request (method, path) before it is forwarded, or holds it a while. */
export type Rewrite = (method: string, path: string, body: Buffer) => Buffer | Promise<Buffer>;

/** Start a front before `upstream` that answers as `broken` says (its requests changed by `rewrite`). */
export async function startBrokenFront(
  upstream: string,
  broken: Break,
  rewrite?: Rewrite,
): Promise<BrokenFront> {
  const target = new URL(upstream);
  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? "/", "http://front.invalid").pathname;
      const received = await bytesOf(req);
      const body = rewrite ? await rewrite(req.method ?? "GET", path, received) : received;
      const headers: Record<string, string | string[] | undefined> = {
        ...req.headers,
        "content-length": String(body.length),
      };
      delete headers["transfer-encoding"];
      const answer = await new Promise<Answer>((resolve, reject) => {
        const forwarded = httpRequest(
          {
            host: target.hostname,
            port: target.port,
            method: req.method,
            path: req.url,
            headers,
          },
          (response) =>
            bytesOf(response).then(
              (bytes) =>
                resolve({
                  status: response.statusCode ?? 502,
                  headers: response.headers as Record<string, string>,
                  body: bytes,
                }),
              reject,
            ),
        );
        forwarded.on("error", reject);
        forwarded.end(body);
      });
      const sent = broken(req.method ?? "GET", path, answer);
      const answered: Record<string, string> = {
        ...sent.headers,
        "content-length": String(sent.body.length),
      };
      delete answered["transfer-encoding"];
      res.writeHead(sent.status, answered);
      res.end(sent.body);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
