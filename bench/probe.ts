// npm run bench:probe: `idv-conformance probe` as users run it (the compiled bin, every phase) against
// the compiled sandbox as `npm run sandbox` starts it, and against the contract mock in the same run,
// rounds alternating. Wall time from spawning the bin to its exit (start-up, contract load, every
// request and the report), medians with the spread. Writes its section of docs/benchmarks.md.
import { type ChildProcess, spawn } from "node:child_process";
import { connect } from "node:net";
import { median, writeBenchSection } from "../scripts/lib/benchmarks-md.js";
import { fromRoot, ROOT } from "../scripts/lib/paths.js";
import { PHASES } from "../conformance/probe/probe-case.js";
import { freePort, stop } from "./processes.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const TARGET_SECONDS = 30;
const KEY = "bench-probe-key";
const SECRET = "bench-probe-secret";

interface Target {
  name: string;
  args: (port: number) => string[];
}

const targets: Target[] = [
  {
    name: "sandbox (node dist/sandbox/cli.js)",
    args: (port) => [
      fromRoot("dist/sandbox/cli.js"),
      "--port",
      String(port),
      "--key",
      KEY,
      "--secret",
      SECRET,
    ],
  },
  {
    name: "contract mock (node dist/mock/cli.js)",
    args: (port) => [fromRoot("dist/mock/cli.js"), "--port", String(port)],
  },
];

async function listening(port: number): Promise<void> {
  const end = Date.now() + 60_000;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.end();
        resolve(true);
      }).on("error", () => resolve(false));
    });
    if (up) return;
    if (Date.now() > end) throw new Error(`nothing listens on ${port}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One probe run: wall seconds, requests sent, and the exit status. */
function probeOnce(
  url: string,
  seed: number,
): Promise<{ seconds: number; requests: number; status: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [
        fromRoot("dist/conformance/cli.js"),
        "probe",
        "--base-url",
        url,
        "--format",
        "json",
        "--seed",
        String(seed),
      ],
      {
        cwd: ROOT,
        env: { ...process.env, IDV_API_KEY: KEY, IDV_API_SECRET: SECRET },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    const chunks: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    child.on("error", reject);
    child.on("exit", (code) => {
      const seconds = (performance.now() - started) / 1000;
      try {
        const report = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
          summary: { requests: number };
        };
        resolve({ seconds, requests: report.summary.requests, status: code ?? -1 });
      } catch (error) {
        reject(error);
      }
    });
  });
}

const servers: { target: Target; child: ChildProcess; url: string }[] = [];
try {
  for (const target of targets) {
    const port = await freePort();
    const child = spawn(process.execPath, target.args(port), { cwd: ROOT, stdio: "ignore" });
    servers.push({ target, child, url: `http://127.0.0.1:${port}` });
    await listening(port);
  }
  const samples = new Map<string, { seconds: number[]; requests: number; statuses: Set<number> }>();
  for (let round = 0; round < ROUNDS; round++) {
    // Alternating order: neither target always runs on a machine the other just warmed.
    const order = round % 2 === 0 ? servers : [...servers].reverse();
    for (const { target, url } of order) {
      const run = await probeOnce(url, round + 1);
      const entry = samples.get(target.name) ?? {
        seconds: [],
        requests: run.requests,
        statuses: new Set<number>(),
      };
      entry.seconds.push(run.seconds);
      entry.statuses.add(run.status);
      samples.set(target.name, entry);
      console.log(
        `${target.name}: ${run.seconds.toFixed(2)} s, ${run.requests} requests, exit ${run.status}`,
      );
    }
  }
  const rows = [...samples.entries()].map(([name, s]) => {
    const mid = median(s.seconds);
    return `| ${name} | ${s.requests} | ${mid.toFixed(2)} s | ${Math.min(...s.seconds).toFixed(2)}–${Math.max(...s.seconds).toFixed(2)} s | ${Math.round(s.requests / mid)} | ${[...s.statuses].join(", ")} |`;
  });
  const sandboxMedian = median(samples.get(targets[0]!.name)?.seconds ?? []);
  writeBenchSection(
    "probe",
    `## Probe (\`npm run bench:probe\`)

\`idv-conformance probe\` with every phase (${PHASES.join(", ")}; the default budgets; concurrency 4), run as
the compiled bin with the credentials in the environment, against the compiled sandbox and the contract
mock started as their bins, ${ROUNDS} rounds alternating; wall time from spawning the bin to its exit.
Exit 0 is a run with no finding; the mock's exit 1 is what a stateless mock without credentials
cannot pass (docs/probe.md). No tool doing the same runs on npm alone (Schemathesis and Specmatic are
Python and JVM programs), so the mock is the peer measured in the same run.

| Target | Requests | Median | Spread (min–max) | Requests/s | Exit |
|---|---:|---:|---:|---:|---:|
${rows.join("\n")}

Target: every phase against the sandbox in ≤ ${TARGET_SECONDS} s; median ${sandboxMedian.toFixed(2)} s (${sandboxMedian <= TARGET_SECONDS ? "met" : "NOT met"}).`,
  );
  console.log("wrote docs/benchmarks.md (probe)");
} finally {
  for (const { child } of servers) await stop(child);
}
