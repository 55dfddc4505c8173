// npm run bench:client — what the client costs a user per request: wall time over a real keep-alive
// loopback socket against a server in its own process (the two pinned to different cores when
// `taskset` and two cores exist), beside the fair peer (what a user writes without this package:
// openapi-fetch with a middleware adding the same headers and node:crypto signature, and a per-request
// deadline), bare openapi-fetch and raw fetch in the same run. Requests and answers are the contract's own
// examples. The stubbed-fetch figure (client-side work alone) and the
// min+gz size of the runtime are reported beside it. It measures the compiled package (dist/, built by
// the npm script first), as integrators run it. Writes its section of docs/benchmarks.md.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { cpSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import createFetchClient, { type Middleware } from "openapi-fetch";
import type { paths } from "../generated/types.js";
import { median, writeBenchSection } from "../scripts/lib/benchmarks-md.js";
import { type Json, resolveRef } from "../scripts/lib/json-ref.js";
import { fromRoot } from "../scripts/lib/paths.js";

// A private copy of the build just made: the shared dist/ may be rebuilt by something else mid-run.
// Under node_modules/ so that the copy still resolves openapi-fetch.
const SNAPSHOT = fromRoot("node_modules/.cache/bench-client");
rmSync(SNAPSHOT, { recursive: true, force: true });
cpSync(fromRoot("dist"), SNAPSHOT, { recursive: true });
const { createClient }: typeof import("../src/index.js") = await import(`${SNAPSHOT}/src/index.js`);

// Three blocks of 31 rounds of 200 sequential calls per variant: the variants take turns within a
// round, in an order that rotates, so that load from elsewhere on the machine falls on all alike.
// BENCH_CLIENT_ROUNDS=n (a quick check) runs one block of n rounds, and n stubbed rounds.
const QUICK = Number(process.env.BENCH_CLIENT_ROUNDS) || 0;
const BLOCKS = QUICK ? 1 : 3;
const ROUNDS = QUICK || 31;
const PER_ROUND = 200;
const STUB_ROUNDS = QUICK || 61;
/** The client's time over the fair peer's, at most. */
const TARGET = 1.05;

// ---- Input from the contract: each operation's first request and success examples. -------------------

const document: Json = JSON.parse(readFileSync(fromRoot("generated/openapi.json"), "utf8"));
const exampleOf = (media: Json): Json => {
  if (media?.example !== undefined) return media.example;
  const first = Object.values<Json>(media?.examples ?? {})[0];
  return resolveRef(document, first)?.value;
};
const operation = (path: string, method: string) => resolveRef(document, document.paths[path][method]);
const requestExample = (path: string, method: string): Json =>
  exampleOf(resolveRef(document, operation(path, method).requestBody)?.content?.["application/json"]);
const answerExample = (path: string, method: string): string =>
  JSON.stringify(
    exampleOf(resolveRef(document, operation(path, method).responses["200"]).content["application/json"]),
  );

const manualBody = requestExample("/api/v2/manual_eidv", "post");
const pepBody = requestExample("/api/v4/pep_checks", "post");
const ANSWERS: Record<string, string> = {
  "POST /api/v2/manual_eidv": answerExample("/api/v2/manual_eidv", "post"),
  "POST /api/v4/pep_checks": answerExample("/api/v4/pep_checks", "post"),
  "GET /api/v4/outsource_cases/{id}": answerExample("/api/v4/outsource_cases/{id}", "get"),
};

// ---- The server: its own process, node:http with keep-alive, answering the examples. -----------------

const SERVER = `
const http = require("node:http");
const answers = JSON.parse(process.env.BENCH_ANSWERS);
const server = http.createServer((req, res) => {
  req.on("data", () => {});
  req.on("end", () => {
    const key = req.method + " " + req.url.split("?")[0].replace(/\\/\\d+$/, "/{id}");
    const body = answers[key] ?? "{}";
    res.writeHead(answers[key] ? 200 : 404, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 120000;
server.listen(0, "127.0.0.1", () => process.stdout.write(server.address().port + "\\n"));
`;

const hasTaskset = (() => {
  try {
    execFileSync("taskset", ["-p", String(process.pid)], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();
const pinned = hasTaskset && availableParallelism() >= 2;

async function startServer(): Promise<{ child: ChildProcess; baseUrl: string }> {
  const env = { ...process.env, BENCH_ANSWERS: JSON.stringify(ANSWERS) };
  const child = pinned
    ? spawn("taskset", ["-c", "1", process.execPath, "-e", SERVER], {
        env,
        stdio: ["ignore", "pipe", "inherit"],
      })
    : spawn(process.execPath, ["-e", SERVER], { env, stdio: ["ignore", "pipe", "inherit"] });
  // The server never outlives the benchmark, however it ends.
  process.on("exit", () => child.kill());
  const port = await new Promise<string>((resolve, reject) => {
    child.once("error", reject);
    child.stdout?.once("data", (chunk: Buffer) => resolve(chunk.toString().trim()));
  });
  // This process, every thread of it, on the other core.
  if (pinned) execFileSync("taskset", ["-a", "-p", "-c", "0", String(process.pid)], { stdio: "ignore" });
  return { child, baseUrl: `http://127.0.0.1:${port}` };
}

// ---- Variants and cases. ------------------------------------------------------------------------------

type Call = () => Promise<unknown>;
type Variants = { raw: Call; bare: Call; peer: Call; idv: Call };
/** The variants of a case; without `fetch`, each sends with its own default (globalThis.fetch). */
type Case = { name: string; variants: (baseUrl: string, fetch?: typeof globalThis.fetch) => Variants };

const credentials = { apiKey: "bench-key", secret: "bench-secret" };
const DEADLINE_MS = 30_000;

/**
 * The fair peer: what an integrator writes without this package. openapi-fetch with a middleware that adds
 * the same credentials (v4: Svc-Date and an HMAC-SHA256 of date and body from node:crypto, hex) and a
 * fetch with a per-request deadline.
 */
function fairPeer(baseUrl: string, fetch: typeof globalThis.fetch = globalThis.fetch) {
  const client = createFetchClient<paths>({
    baseUrl,
    fetch: (request: Request) => fetch(request, { signal: AbortSignal.timeout(DEADLINE_MS) }),
  });
  const credentialsMiddleware: Middleware = {
    async onRequest({ request, schemaPath }) {
      request.headers.set("Svc-API-Key", credentials.apiKey);
      if (schemaPath.startsWith("/api/v2/")) {
        request.headers.set("Svc-Secret", credentials.secret);
        return request;
      }
      const date = new Date().toISOString();
      const body = request.body ? await request.clone().text() : "";
      request.headers.set("Svc-Date", date);
      request.headers.set(
        "Svc-Signature",
        createHmac("sha256", credentials.secret).update(date).update(body).digest("hex"),
      );
      return request;
    },
  };
  client.use(credentialsMiddleware);
  return client;
}
/** The package's client with the default options, or with a fetch (the stubbed runs). */
const idvClient = (baseUrl: string, fetch?: typeof globalThis.fetch) =>
  createClient({ baseUrl, ...credentials, ...(fetch ? { fetch } : {}) });
const rawJson =
  (fetch: typeof globalThis.fetch | undefined, url: string, method: string, body?: unknown) => async () => {
    const init: RequestInit = { method, headers: { "Content-Type": "application/json" } };
    if (body !== undefined) init.body = JSON.stringify(body);
    return (await (fetch ?? globalThis.fetch)(url, init)).json();
  };

const cases: Case[] = [
  {
    name: "v2 POST /api/v2/manual_eidv (key + secret)",
    variants: (baseUrl, fetch) => {
      const bare = createFetchClient<paths>({ baseUrl, fetch });
      const peer = fairPeer(baseUrl, fetch);
      const idv = idvClient(baseUrl, fetch);
      return {
        raw: rawJson(fetch, `${baseUrl}/api/v2/manual_eidv`, "POST", manualBody),
        bare: () => bare.POST("/api/v2/manual_eidv", { body: manualBody }),
        peer: () => peer.POST("/api/v2/manual_eidv", { body: manualBody }),
        idv: () => idv.POST("/api/v2/manual_eidv", { body: manualBody }),
      };
    },
  },
  {
    name: "v4 POST /api/v4/pep_checks (signed body)",
    variants: (baseUrl, fetch) => {
      const bare = createFetchClient<paths>({ baseUrl, fetch });
      const peer = fairPeer(baseUrl, fetch);
      const idv = idvClient(baseUrl, fetch);
      return {
        raw: rawJson(fetch, `${baseUrl}/api/v4/pep_checks`, "POST", pepBody),
        bare: () => bare.POST("/api/v4/pep_checks", { body: pepBody }),
        peer: () => peer.POST("/api/v4/pep_checks", { body: pepBody }),
        idv: () => idv.POST("/api/v4/pep_checks", { body: pepBody }),
      };
    },
  },
  {
    name: "v4 GET /api/v4/outsource_cases/{id} (signed, no body)",
    variants: (baseUrl, fetch) => {
      const bare = createFetchClient<paths>({ baseUrl, fetch });
      const peer = fairPeer(baseUrl, fetch);
      const idv = idvClient(baseUrl, fetch);
      const params = { path: { id: 7 } };
      return {
        raw: rawJson(fetch, `${baseUrl}/api/v4/outsource_cases/7`, "GET"),
        bare: () => bare.GET("/api/v4/outsource_cases/{id}", { params }),
        peer: () => peer.GET("/api/v4/outsource_cases/{id}", { params }),
        idv: () => idv.GET("/api/v4/outsource_cases/{id}", { params }),
      };
    },
  },
];

/** Per variant, microseconds per request in each round, variants taking turns in a rotating order. */
async function perRound(variants: Call[], rounds: number, warmUp: number): Promise<number[][]> {
  for (const run of variants) for (let i = 0; i < warmUp; i++) await run();
  const times: number[][] = variants.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < variants.length; k++) {
      const v = (r + k) % variants.length;
      const run = variants[v] as Call;
      const start = performance.now();
      for (let i = 0; i < PER_ROUND; i++) await run();
      times[v]?.push(((performance.now() - start) * 1000) / PER_ROUND);
    }
  }
  return times;
}

/** The value at a fraction of a sorted copy. */
const quantile = (values: number[], q: number): number =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? Number.NaN;
/** Per round, a variant's time over the baseline's in the same round. */
const ratios = (times: number[], baseline: number[]): number[] =>
  times.map((t, r) => t / (baseline[r] as number));
const x = (ratio: number) => `${ratio.toFixed(2)}×`;

// ---- The peer is fair: the same credential headers, and signatures that verify. ------------------------

/** What each variant sends for each case, captured by a stubbed fetch: the credential headers must match. */
async function checkPeerSendsTheSame(): Promise<void> {
  for (const c of cases) {
    const sent: Record<string, Request> = {};
    const capture =
      (name: string): typeof globalThis.fetch =>
      async (input) => {
        sent[name] = (input as Request).clone();
        return new Response("{}", { headers: { "Content-Type": "application/json" } });
      };
    await c.variants("https://idv.bench", capture("peer")).peer();
    await c.variants("https://idv.bench", capture("idv")).idv();
    for (const [name, request] of Object.entries(sent)) {
      const names = ["svc-api-key", "svc-secret", "svc-date", "svc-signature"].filter((h) =>
        request.headers.has(h),
      );
      const expected = c.name.startsWith("v2")
        ? ["svc-api-key", "svc-secret"]
        : ["svc-api-key", "svc-date", "svc-signature"];
      const date = request.headers.get("svc-date");
      const body = await request.text();
      const verifies =
        date === null ||
        request.headers.get("svc-signature") ===
          createHmac("sha256", credentials.secret)
            .update(date + body)
            .digest("hex");
      if (names.join() !== expected.join() || !verifies) {
        throw new Error(
          `${c.name}: ${name} sends ${names.join(", ")}${verifies ? "" : " with a signature that does not verify"}`,
        );
      }
    }
  }
}
await checkPeerSendsTheSame();

// ---- Over the socket. ---------------------------------------------------------------------------------

const { child, baseUrl } = await startServer();
const socketRows: string[] = [];
const missed: string[] = [];
try {
  for (const c of cases) {
    // Every variant with its default fetch: globalThis.fetch, as an integrator's code sends.
    const { raw, bare, peer, idv } = c.variants(baseUrl);
    const raws: number[] = [];
    const bares: number[] = [];
    const peers: number[] = [];
    const idvs: number[] = [];
    const blockRatios: number[] = [];
    for (let b = 0; b < BLOCKS; b++) {
      const [r = [], o = [], p = [], i = []] = await perRound(
        [raw, bare, peer, idv],
        ROUNDS,
        b === 0 ? 1000 : 200,
      );
      raws.push(...r);
      bares.push(...o);
      peers.push(...p);
      idvs.push(...i);
      blockRatios.push(median(ratios(i, p)));
    }
    const all = ratios(idvs, peers);
    const ratio = median(all);
    if (ratio > TARGET) missed.push(c.name.split(" (")[0] as string);
    socketRows.push(
      `| ${c.name} | ${median(raws).toFixed(1)} | ${median(bares).toFixed(1)} | ${median(peers).toFixed(1)} | ` +
        `${median(idvs).toFixed(1)} | **${x(ratio)}** | ${x(quantile(all, 0.25))}–${x(quantile(all, 0.75))} | ` +
        `${blockRatios.map(x).join(", ")} | ${x(median(ratios(idvs, bares)))} |`,
    );
    console.log(socketRows.at(-1));
  }
} finally {
  child.kill();
}

// ---- Stubbed fetch: client-side work alone, for reference (no target). --------------------------------

const STUB_URL = "https://idv.bench";
const stub = (async (input: Request | string | URL) => {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  const path = new URL(url).pathname.replace(/\/\d+$/, "/{id}");
  const method = input instanceof Request ? input.method : "GET";
  const body = ANSWERS[`${method} ${path}`] ?? ANSWERS["POST /api/v4/pep_checks"] ?? "{}";
  return new Response(body, {
    headers: { "Content-Type": "application/json", "Content-Length": String(Buffer.byteLength(body)) },
  });
}) as typeof globalThis.fetch;
const stubRows: string[] = [];
for (const c of cases) {
  const { bare, peer, idv } = c.variants(STUB_URL, stub);
  const [o = [], p = [], i = []] = await perRound([bare, peer, idv], STUB_ROUNDS, 2000);
  stubRows.push(
    `| ${c.name} | ${median(o).toFixed(1)} | ${median(p).toFixed(1)} | ${median(i).toFixed(1)} | ` +
      `${x(median(ratios(i, p)))} | ${x(median(ratios(i, o)))} |`,
  );
  console.log(stubRows.at(-1));
}

// ---- Size. --------------------------------------------------------------------------------------------

/** Minified and gzipped bytes of an ES module bundled by esbuild for the browser-neutral platform. */
async function minGz(source: string, external: string[] = []): Promise<{ min: number; gz: number }> {
  const out = await build({
    stdin: { contents: source, resolveDir: fromRoot(), loader: "js" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "neutral",
    external: ["node:*", ...external],
    write: false,
    logLevel: "silent",
  });
  const code = out.outputFiles[0]?.contents ?? new Uint8Array();
  return { min: code.byteLength, gz: gzipSync(code, { level: 9 }).byteLength };
}

// The runtime as the package ships it, with everything it exports; openapi-fetch as an application that
// uses its client has it. What the runtime adds beside openapi-fetch is the difference of the bundles.
const RUNTIME = `export * from ${JSON.stringify(`${SNAPSHOT}/src/index.js`)};`;
const withOpenapiFetch = await minGz(RUNTIME);
const openapiFetch = await minGz('export { default } from "openapi-fetch";');
const alone = await minGz(RUNTIME, ["openapi-fetch"]);
const added = withOpenapiFetch.gz - openapiFetch.gz;
console.log(`runtime adds ${added} B min+gz beside openapi-fetch (${alone.gz} B alone)`);

const cores = pinned
  ? "the server pinned to core 1 and this process (every thread) to core 0 with `taskset`"
  : `not pinned (${hasTaskset ? `${availableParallelism()} core(s)` : "no `taskset` on this machine"})`;
const section = `## Typed client (\`npm run bench:client\`)

What a user pays per request: wall time of one call over a real keep-alive loopback socket, to a
\`node:http\` server in its own process that answers each operation's success example; the requests
are the contract's request examples. The compiled package (\`dist/\`), with the **default options**
(whole-request deadline, retries, redirects handled by the client, signing with node:crypto), against
the **fair peer**, bare openapi-fetch and raw \`fetch\` on the same socket, in the same run; ${cores}.
The fair peer is what an integrator writes without this package: openapi-fetch with a middleware that
adds the same headers (v4: \`Svc-Date\` and an HMAC-SHA256 from \`node:crypto\` over the date and the
body read back with \`request.clone().text()\`) and a fetch given \`AbortSignal.timeout(${DEADLINE_MS})\`
per request. Every variant sends with \`globalThis.fetch\`.
${BLOCKS} blocks × ${ROUNDS} rounds × ${PER_ROUND} sequential calls per variant, after a warm-up; the variants
take turns within each round in a rotating order. Times are medians over rounds. The ratio is the
median over rounds of the client's time over the fair peer's in the same round; the spread is
its interquartile range over all rounds, then the median of each block; the last column is the same
median over bare openapi-fetch, for reference only. Measured
${new Date().toISOString().slice(0, 10)}, Node ${process.version}, load average at the end ${loadavg()
  .map((n) => n.toFixed(2))
  .join(
    " ",
  )}${QUICK ? ` (**provisional**: a quick run of ${ROUNDS} rounds, \`BENCH_CLIENT_ROUNDS=${QUICK}\`)` : ""}.

Target: at most ${TARGET.toFixed(2)}× the fair peer, wall, for v2 POST, v4 POST and v4 GET with the
default options. Bare openapi-fetch (no credentials, no deadline) has no target.

| Request | raw fetch (µs) | bare openapi-fetch (µs) | fair peer (µs) | idv client (µs) | client ÷ peer | spread (IQR) | per block | client ÷ bare |
|---|---|---|---|---|---|---|---|---|
${socketRows.join("\n")}

${missed.length ? `**Target missed** in this run for: ${missed.join("; ")}.` : "Target met in every row of this run."}

For reference only (no target): the same calls with a stubbed \`fetch\` that answers at once, so that
only client-side work is timed (building the request, credentials, signing, parsing). It magnifies the
client's share several-fold, because it leaves out the socket that every real request pays for.
${STUB_ROUNDS} rounds of ${PER_ROUND} calls.

| Request, stubbed fetch | bare openapi-fetch (µs) | fair peer (µs) | idv client (µs) | ÷ peer | ÷ bare |
|---|---|---|---|---|---|
${stubRows.join("\n")}

Size: the package's runtime (\`dist/src/index.js\`, with the generated per-operation facts and every
export; \`node:crypto\` is the platform's) bundled and minified by esbuild, then gzipped (level 9).
Beside openapi-fetch it adds **${added.toLocaleString("en")} bytes** min+gz: a bundle of both is
${withOpenapiFetch.gz.toLocaleString("en")} bytes, openapi-fetch's client alone ${openapiFetch.gz.toLocaleString("en")}. Bundled alone, with openapi-fetch
external, it is ${alone.gz.toLocaleString("en")} bytes (${alone.min.toLocaleString("en")} minified). Target: at most 5 kB (5,000 bytes) beside
openapi-fetch: **${added <= 5000 ? "met" : "missed"}**.
`;

writeBenchSection("client", section);
rmSync(SNAPSHOT, { recursive: true, force: true });
console.log("wrote docs/benchmarks.md (bench:client)");
