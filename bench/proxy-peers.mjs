// The validating proxy's peers in `npm run bench:proxy`, as plain JavaScript like the compiled proxy:
//   node bench/proxy-peers.mjs upstream PORT FILE  answers every request with FILE's fixed answers
//   node bench/proxy-peers.mjs bare PORT UPSTREAM  a bare pass-through proxy: node:http, the same
//     streaming and hop-by-hop handling as the validating proxy, with no copy and no check.
import { readFileSync } from "node:fs";
import { createServer, request } from "node:http";
import { pipeline } from "node:stream";

const [role, port, arg] = process.argv.slice(2);
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "te", "trailer", "upgrade"]);
const forwardable = (raw, drop) => {
  const out = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (!HOP_BY_HOP.has(name) && !drop.has(name)) out.push(raw[i], raw[i + 1]);
  }
  return out;
};

let server;
if (role === "upstream") {
  // { "METHOD /path": { status, headers, body (base64) } }
  const answers = new Map(
    Object.entries(JSON.parse(readFileSync(arg, "utf8"))).map(([k, v]) => [
      k,
      { ...v, body: Buffer.from(v.body, "base64") },
    ]),
  );
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const answer = answers.get(`${req.method} ${req.url}`);
      if (!answer) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(answer.status, { ...answer.headers, "content-length": answer.body.length });
      res.end(answer.body);
    });
  });
} else {
  const upstream = new URL(arg);
  server = createServer((req, res) => {
    const headers = forwardable(req.rawHeaders, new Set(["host"]));
    headers.push("Host", upstream.host);
    const out = request({
      hostname: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers,
    });
    pipeline(req, out, () => undefined);
    out.on("error", () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
    out.on("response", (answer) => {
      res.writeHead(answer.statusCode, answer.statusMessage, forwardable(answer.rawHeaders, new Set()));
      pipeline(answer, res, () => undefined);
    });
  });
}
server.listen(Number(port), "127.0.0.1", () => console.log(`listening on ${port}`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
