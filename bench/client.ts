// npm run bench:client — the per-request cost of the client against bare openapi-fetch and raw fetch,
// with a stubbed fetch (no network), and the min+gz size of the runtime beside openapi-fetch.
// It measures the compiled package (dist/, built by the npm script first), as integrators run it.
// Writes its section of docs/benchmarks.md.
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import createFetchClient from "openapi-fetch";
import type { paths } from "../generated/types.js";
import { median, writeBenchSection } from "../scripts/lib/benchmarks-md.js";
import { fromRoot } from "../scripts/lib/paths.js";
import { createClient } from "../dist/src/index.js";

const BASE_URL = "https://idv.bench";
// Many short rounds: noise from elsewhere on a shared machine comes in bursts, and a short round is
// either hit or not, where a long one always carries some.
const ROUNDS = 201;
const PER_ROUND = 200;
const answer = JSON.stringify({ id: 1, reference: "bench", is_pep_watchlist_clear: true });
// A fresh Response per call: a body can be read once.
const stub = async (_request: Request) =>
  new Response(answer, {
    headers: { "Content-Type": "application/json", "Content-Length": String(answer.length) },
  });

const pepBody = { reference: "bench", firstname: "A", lastname: "B", date_of_birth: "02/03/1990" };
const manualBody = {
  metadata: { reference: "bench" },
  individual: { first_name: "A", last_name: "B", date_of_birth: "1990-03-02" },
  address: { line_1: "1 High St", postcode: "AB1 2CD", country: "GBR", city: "London" },
} as const;

const bare = createFetchClient<paths>({ baseUrl: BASE_URL, fetch: stub });
const idv = createClient({ baseUrl: BASE_URL, apiKey: "bench-key", secret: "bench-secret", fetch: stub });
// The same without the per-attempt timeout, to show what the timeout's timer and AbortController cost.
const idvNoTimeout = createClient({
  baseUrl: BASE_URL,
  apiKey: "bench-key",
  secret: "bench-secret",
  fetch: stub,
  timeoutMs: 0,
});
const rawJson = async (method: string, path: string, body?: unknown) => {
  const init: RequestInit = { method, headers: { "Content-Type": "application/json" } };
  if (body !== undefined) init.body = JSON.stringify(body);
  return (await stub(new Request(BASE_URL + path, init))).json();
};

type Call = () => Promise<unknown>;
type Case = { name: string; raw: Call; bare: Call; idv: Call; idvNoTimeout: Call };
const cases: Case[] = [
  {
    name: "v2 POST /api/v2/manual_eidv (key + secret)",
    raw: () => rawJson("POST", "/api/v2/manual_eidv", manualBody),
    bare: () => bare.POST("/api/v2/manual_eidv", { body: manualBody }),
    idv: () => idv.POST("/api/v2/manual_eidv", { body: manualBody }),
    idvNoTimeout: () => idvNoTimeout.POST("/api/v2/manual_eidv", { body: manualBody }),
  },
  {
    name: "v4 POST /api/v4/pep_checks (signed body)",
    raw: () => rawJson("POST", "/api/v4/pep_checks", pepBody),
    bare: () => bare.POST("/api/v4/pep_checks", { body: pepBody }),
    idv: () => idv.POST("/api/v4/pep_checks", { body: pepBody }),
    idvNoTimeout: () => idvNoTimeout.POST("/api/v4/pep_checks", { body: pepBody }),
  },
  {
    name: "v4 GET /api/v4/outsource_cases/{id} (signed, no body)",
    raw: () => rawJson("GET", "/api/v4/outsource_cases/7"),
    bare: () => bare.GET("/api/v4/outsource_cases/{id}", { params: { path: { id: 7 } } }),
    idv: () => idv.GET("/api/v4/outsource_cases/{id}", { params: { path: { id: 7 } } }),
    idvNoTimeout: () => idvNoTimeout.GET("/api/v4/outsource_cases/{id}", { params: { path: { id: 7 } } }),
  },
];

/** Per variant, microseconds per request in each round. The variants take turns within a round, in an order
 * that rotates each round, so that no variant always runs right after another (and pays its GC debt). */
async function perRound(variants: (() => Promise<unknown>)[]): Promise<number[][]> {
  for (const run of variants) for (let i = 0; i < 2000; i++) await run(); // warm-up
  const rounds: number[][] = variants.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < variants.length; k++) {
      const v = (r + k) % variants.length;
      const run = variants[v] as () => Promise<unknown>;
      const start = performance.now();
      for (let i = 0; i < PER_ROUND; i++) await run();
      rounds[v]?.push(((performance.now() - start) * 1000) / PER_ROUND);
    }
  }
  return rounds;
}

/** The median over rounds of a variant's time over the baseline's in the same round, minus one. */
const pairedOverhead = (times: number[], baseline: number[]): number =>
  median(times.map((t, r) => t / (baseline[r] as number))) - 1;

/** Minified and gzipped bytes of an ES module bundled by esbuild for the browser-neutral platform. */
async function minGz(source: string, external: string[] = []): Promise<{ min: number; gz: number }> {
  const out = await build({
    stdin: { contents: source, resolveDir: fromRoot(), loader: "js" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "neutral",
    external,
    write: false,
    logLevel: "silent",
  });
  const code = out.outputFiles[0]?.contents ?? new Uint8Array();
  return { min: code.byteLength, gz: gzipSync(code, { level: 9 }).byteLength };
}

const rows: string[] = [];
// Rows and columns over the +20% target, named in the section so that a miss is never hidden.
const missed: string[] = [];
for (const c of cases) {
  const [raw = [], bareUs = [], idvUs = [], idvNoTimeoutUs = []] = await perRound([
    c.raw,
    c.bare,
    c.idv,
    c.idvNoTimeout,
  ]);
  const over = (times: number[]) => {
    const percent = pairedOverhead(times, bareUs) * 100;
    return `${median(times).toFixed(1)} (${percent >= 0 ? "+" : ""}${percent.toFixed(0)}%)`;
  };
  rows.push(
    `| ${c.name} | ${median(raw).toFixed(1)} | ${median(bareUs).toFixed(1)} | ${over(idvNoTimeoutUs)} | ${over(idvUs)} |`,
  );
  if (pairedOverhead(idvNoTimeoutUs, bareUs) > 0.2) missed.push(c.name.split(" (")[0] as string);
  console.log(rows[rows.length - 1]);
}

// The runtime as the package ships it, with everything it exports; openapi-fetch as an application that
// uses its client has it. What the runtime adds beside openapi-fetch is the difference of the bundles.
const RUNTIME = 'export * from "./dist/src/index.js";';
const withOpenapiFetch = await minGz(RUNTIME);
const openapiFetch = await minGz('export { default } from "openapi-fetch";');
const alone = await minGz(RUNTIME, ["openapi-fetch"]);
const added = withOpenapiFetch.gz - openapiFetch.gz;
console.log(`runtime adds ${added} B min+gz beside openapi-fetch (${alone.gz} B alone)`);

const section = `## Typed client (\`npm run bench:client\`)

Per request: microseconds for one call with a stubbed \`fetch\` that answers a small JSON body at once,
so only client-side work is measured (building the request, credentials, signing, parsing the answer),
on the compiled package. ${ROUNDS} rounds of ${PER_ROUND} sequential calls after a warm-up; the variants take
turns within each round, in an order that rotates, so that load from elsewhere on the machine falls on
all of them alike. Times are medians over rounds; the overhead is the median over rounds of the client's
time over bare openapi-fetch's in the same round. Measured ${new Date().toISOString().slice(0, 10)}, Node ${process.version}.

Target: the auth and error layer adds at most 20% over bare openapi-fetch, measured with
\`timeoutMs: 0\`. The defaults add the client's per-attempt timeout, which is transport rather than auth:
one AbortController and one timer per attempt. Creating an AbortSignal is a large part of Node 20's
own cost per Request, so that column is shown beside it, not hidden.

| Request | raw fetch (µs) | bare openapi-fetch (µs) | idv client, \`timeoutMs: 0\` (µs, vs openapi-fetch) | idv client, defaults (µs, vs openapi-fetch) |
|---|---|---|---|---|
${rows.join("\n")}

${missed.length ? `**Target missed** in this run for: ${missed.join("; ")}.` : "Target met in every row of this run."}

Size: the package's runtime (\`dist/src/index.js\`, with the generated per-operation facts and every
export) bundled and minified by esbuild, then gzipped (level 9). Beside openapi-fetch it adds
**${added.toLocaleString("en")} bytes** min+gz: a bundle of both is ${withOpenapiFetch.gz.toLocaleString("en")} bytes, openapi-fetch's client alone
${openapiFetch.gz.toLocaleString("en")}. Bundled alone, with openapi-fetch external, it is ${alone.gz.toLocaleString("en")} bytes (${alone.min.toLocaleString("en")} minified).
Target: at most 5 kB (5,000 bytes) beside openapi-fetch: **${added <= 5000 ? "met" : "missed"}**.
`;

writeBenchSection("client", section);
console.log("wrote docs/benchmarks.md (bench:client)");
