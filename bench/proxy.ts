// npm run bench:proxy: the validating proxy's throughput beside a bare pass-through proxy (same
// streaming, no check) and the upstream alone, in one run. Each server runs compiled, in its own
// process; requests and answers are the contract's own examples. Medians of rotated rounds, with
// spread. Writes its section of docs/benchmarks.md.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { median, writeBenchSection } from "../scripts/lib/benchmarks-md.js";
import { fromRoot, ROOT } from "../scripts/lib/paths.js";
import { freePort, stop } from "./processes.js";
import { QUIET_ENV } from "../scripts/lib/run-tool.js";
import { jsonRequestExamples, loadOpenApi, operations } from "../test/support/contract.js";

const ROUNDS = 5;
const SECONDS = 3;
const CONNECTIONS = 10;

const doc = loadOpenApi();
const ops = operations(doc);
const operation = (operationId: string) => ops.find((o) => o.op.operationId === operationId)?.op;

/** The first named example of a response's media type. */
// The contract is walked structurally.
function responseExample(op: any, status: string, mediaType: string): unknown {
  const response = op.responses[status].$ref
    ? doc.components.responses[op.responses[status].$ref.split("/").pop()]
    : op.responses[status];
  const media = response.content[mediaType];
  const first = Object.values<any>(media.examples ?? {})[0];
  const example = first?.$ref ? doc.components.examples[first.$ref.split("/").pop()] : first;
  return example?.value ?? media.example;
}

const V4 = { "svc-api-key": "bench-key", "svc-date": "2026-11-22T09:30:00.000Z", "svc-signature": "00" };
const pep = operation("createPepCheck");
const pepBody = JSON.stringify(jsonRequestExamples(doc, pep)?.[0]);
const pepAnswer = Buffer.from(JSON.stringify(responseExample(pep, "200", "application/json")));
// A PDF answer of 256 KiB: the proxy streams it and keeps a copy for the signature check.
const pdfAnswer = Buffer.concat([Buffer.from("%PDF-1.4\n"), Buffer.alloc(256 * 1024 - 9, 0x20)]);

const requests = [
  {
    label: "POST /api/v4/pep_checks (JSON, checked)",
    method: "POST" as const,
    path: "/api/v4/pep_checks",
    headers: { ...V4, "content-type": "application/json" },
    body: pepBody,
  },
  {
    label: "GET /api/v4/pdf/pep_checks/{id} (256 KiB PDF)",
    method: "GET" as const,
    path: "/api/v4/pdf/pep_checks/1042",
    headers: V4,
  },
];

const dir = mkdtempSync(join(tmpdir(), "idv-bench-proxy-"));
const answersFile = join(dir, "answers.json");
writeFileSync(
  answersFile,
  JSON.stringify({
    "POST /api/v4/pep_checks": {
      status: 200,
      headers: { "content-type": "application/json" },
      body: pepAnswer.toString("base64"),
    },
    "GET /api/v4/pdf/pep_checks/1042": {
      status: 200,
      headers: {
        "content-type": "application/pdf",
        "content-disposition": 'attachment; filename="report.pdf"',
      },
      body: pdfAnswer.toString("base64"),
    },
  }),
);

async function spawnServer(args: string[], ready: RegExp): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: QUIET_ENV,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let seen = "";
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      seen += d.toString();
      if (ready.test(seen)) resolve();
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`exited with ${code}: ${seen.slice(-500)}`)));
  });
  return child;
}

const upstreamPort = await freePort();
const upstream = await spawnServer(
  ["bench/proxy-peers.mjs", "upstream", String(upstreamPort), answersFile],
  /listening/,
);
const upstreamUrl = `http://127.0.0.1:${upstreamPort}`;
const barePort = await freePort();
const bare = await spawnServer(["bench/proxy-peers.mjs", "bare", String(barePort), upstreamUrl], /listening/);
const checkedPort = await freePort();
const checked = await spawnServer(
  [fromRoot("dist/conformance/cli.js"), "proxy", "--upstream", upstreamUrl, "--port", String(checkedPort)],
  /proxy: http/,
);

const targets = [
  { name: "upstream alone", port: upstreamPort },
  { name: "bare pass-through proxy", port: barePort },
  { name: "idv-conformance proxy", port: checkedPort },
];

// requests/s by request label, then target name: one value per round.
const results = new Map<string, Map<string, number[]>>();
for (let round = 0; round < ROUNDS; round++) {
  // Rotated, so that no target always runs first (or last) on a shared machine.
  const order = targets.map((_, i) => targets[(i + round) % targets.length] as (typeof targets)[number]);
  for (const r of requests) {
    for (const target of order) {
      const result = await autocannon({
        url: `http://127.0.0.1:${target.port}${r.path}`,
        method: r.method,
        headers: r.headers,
        body: r.body,
        connections: CONNECTIONS,
        duration: SECONDS,
      });
      if (result.non2xx > 0 || result.errors > 0)
        throw new Error(`${target.name} ${r.label}: ${result.non2xx} non-2xx, ${result.errors} errors`);
      const byTarget = results.get(r.label) ?? new Map<string, number[]>();
      results.set(r.label, byTarget);
      byTarget.set(target.name, [...(byTarget.get(target.name) ?? []), result.requests.average]);
      console.log(`round ${round + 1} ${r.label} ${target.name}: ${Math.round(result.requests.average)}/s`);
    }
  }
}

await stop(checked);
await stop(bare);
await stop(upstream);
rmSync(dir, { recursive: true, force: true });

const rows: string[] = [];
for (const [label, byTarget] of results) {
  const bareMedian = median(byTarget.get("bare pass-through proxy") ?? []);
  for (const target of targets) {
    const values = byTarget.get(target.name) ?? [];
    const m = median(values);
    const overhead =
      target.name === "idv-conformance proxy"
        ? `${Math.round((1 - m / bareMedian) * 100)}% fewer than bare`
        : "";
    rows.push(
      `| ${label} | ${target.name} | ${Math.round(m)} | ${Math.round(Math.min(...values))}–${Math.round(Math.max(...values))} | ${overhead} |`,
    );
  }
}

writeBenchSection(
  "proxy",
  `## Validating proxy (\`npm run bench:proxy\`)

Requests per second through \`idv-conformance proxy\` (compiled, \`node dist/conformance/cli.js\`),
through a bare pass-through proxy (node:http with the same streaming and hop-by-hop handling, no copy
and no check: \`bench/proxy-peers.mjs\`), and to the upstream alone, which answers the contract's own
examples. autocannon, ${CONNECTIONS} connections, ${SECONDS} s per target and request, ${ROUNDS} rounds in
rotated order; median and range of the rounds. Every process shares the machine's cores. Measured
${new Date().toISOString().slice(0, 10)}, Node ${process.version}.

| Request | Target | Requests/s (median) | Range | Overhead |
|---|---|---|---|---|
${rows.join("\n")}`,
);
console.log("wrote docs/benchmarks.md (proxy)");
