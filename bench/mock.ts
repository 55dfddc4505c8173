// npm run bench:mock: start-up time and loopback latency of the contract mock beside plain Prism,
// in one run, on the same contract and requests. Writes its section of docs/benchmarks.md.
import { type ChildProcess, spawn } from "node:child_process";
import autocannon from "autocannon";
import { median, writeBenchSection } from "../scripts/lib/benchmarks-md.js";
import { fromRoot, ROOT } from "../scripts/lib/paths.js";
import { freePort, stop } from "./processes.js";
import { QUIET_ENV } from "../scripts/lib/run-tool.js";

const STARTS = 3;
const SECONDS = 5;

interface Server {
  name: string;
  command: (port: number) => [string, string[]];
  ready: RegExp;
}

const servers: Server[] = [
  {
    name: "idv mock (front + Prism library, compiled)",
    command: (p) => [process.execPath, [fromRoot("dist/mock/cli.js"), "--port", String(p)]],
    ready: /listening on/,
  },
  {
    name: "plain Prism CLI",
    command: (p) => [
      fromRoot("node_modules/.bin/prism"),
      ["mock", "generated/openapi.json", "-p", String(p), "-h", "127.0.0.1"],
    ],
    ready: /Prism is listening/,
  },
];

async function start(server: Server): Promise<{ child: ChildProcess; port: number; ms: number }> {
  const port = await freePort();
  const [bin, args] = server.command(port);
  const t0 = performance.now();
  const child = spawn(bin, args, { cwd: ROOT, env: QUIET_ENV, stdio: ["ignore", "pipe", "pipe"] });
  let seen = "";
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      seen += d.toString();
      if (server.ready.test(seen)) resolve();
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) =>
      reject(new Error(`${server.name} exited with ${code}: ${seen.slice(-500)}`)),
    );
  });
  // Start-up ends with the first answered request, as a user's first call sees it.
  const first = await fetch(`http://127.0.0.1:${port}/api/v4/pdf/pep_checks/1042`, { headers: V4 });
  await first.arrayBuffer();
  return { child, port, ms: performance.now() - t0 };
}

const V4 = {
  "svc-api-key": "bench-key",
  "svc-date": "2026-11-22T09:30:00.000Z",
  "svc-signature": "00",
  "content-type": "application/json",
};
const requests = [
  {
    label: "POST /api/v4/pep_checks (valid)",
    method: "POST" as const,
    path: "/api/v4/pep_checks",
    body: JSON.stringify({
      reference: "bench",
      date_of_birth: "14/03/1985",
      firstname: "Aroha",
      lastname: "Ngata",
    }),
  },
  {
    label: "GET /api/v4/pdf/pep_checks/{id} (PDF)",
    method: "GET" as const,
    path: "/api/v4/pdf/pep_checks/1042",
  },
];

const rows: string[] = [];
for (const server of servers) {
  const startups: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const s = await start(server);
    startups.push(s.ms);
    if (i < STARTS - 1) await stop(s.child);
    else {
      for (const r of requests) {
        // Warm-up, not measured: the first requests compile validators and fill Prism's caches.
        await autocannon({
          url: `http://127.0.0.1:${s.port}${r.path}`,
          method: r.method,
          headers: V4,
          body: r.body,
          connections: 10,
          duration: 2,
        });
        const result = await autocannon({
          url: `http://127.0.0.1:${s.port}${r.path}`,
          method: r.method,
          headers: V4,
          body: r.body,
          connections: 10,
          duration: SECONDS,
        });
        const non2xx = result.non2xx;
        rows.push(
          `| ${server.name} | ${r.label} | ${Math.round(median(startups))} | ${result.latency.p50} | ${result.latency.p99} | ${Math.round(result.requests.average)} | ${non2xx} |`,
        );
        console.log(rows.at(-1));
      }
      await stop(s.child);
    }
  }
}

writeBenchSection(
  "mock",
  `## Contract mock (\`npm run bench:mock\`)

Start-up: median of ${STARTS} starts, from spawn to the first answered request. Latency: autocannon, 10
connections for ${SECONDS} s per request on loopback, after start-up and a 2 s warm-up. Measured ${new Date().toISOString().slice(0, 10)}, Node ${process.version}.

| Server | Request | Start-up (ms) | p50 (ms) | p99 (ms) | Requests/s | Non-2xx |
|---|---|---|---|---|---|---|
${rows.join("\n")}

The mock checks every request against the contract (ajv, compiled once) before Prism answers, so it
does more per request than plain Prism; plain Prism does not check \`unevaluatedProperties\` and answers
invalid requests with its own problem+json.`,
);
console.log("wrote docs/benchmarks.md (mock)");
