// A relay of webhook deliveries: the address a deployment is told to call, forwarding each delivery
// to where the test says (the probe's listener) unless `drop` says the deployment should not have
// sent it, changed by `edit` if given; `after` sees each one forwarded (a test standing in for the
// end user).
import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface EventRelay {
  url: string;
  /** Where deliveries go from now on. */
  forwardTo(url: string): void;
  close(): Promise<void>;
}

async function bytesOf(message: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of message) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Forward one delivery; the status its receiver answered. */
function forward(target: URL, req: IncomingMessage, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const out = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: "POST",
        path: target.pathname,
        headers: { ...req.headers, host: target.host, "content-length": String(body.length) },
      },
      (answer) => {
        answer.resume();
        answer.on("end", () => resolve(answer.statusCode ?? 502));
      },
    );
    out.on("error", reject);
    out.end(body);
  });
}

/** Start a relay; `drop` and `after` see each delivery's parsed payload. */
export async function startEventRelay(
  options: {
    drop?: (payload: Record<string, unknown>) => boolean;
    edit?: (payload: Record<string, unknown>) => Record<string, unknown>;
    after?: (payload: Record<string, unknown>) => Promise<void>;
  } = {},
): Promise<EventRelay> {
  let target: URL | undefined;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await bytesOf(req);
      const payload = JSON.parse(body.toString("utf8")) as Record<string, unknown>;
      if (options.drop?.(payload) || !target) return res.writeHead(200).end();
      const sent = options.edit ? Buffer.from(JSON.stringify(options.edit(payload))) : body;
      const status = await forward(target, req, sent);
      res.writeHead(status).end();
      await options.after?.(payload);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    forwardTo: (url) => void (target = new URL(url)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
