// A worker's out-of-memory run in a process of its own: `pool FILE…` runs checkInWorkers(2, files),
// `cli ARG…` runs the CLI with two cores whatever the machine has; either prints what came out as
// JSON. Node can end the whole process instead of the worker when a worker reaches its heap limit
// (V8's "Reached heap limit" fatal, seen on Node 22 and 26 about one run in ten): in a child, that
// ends this process, not the test runner's.
import { createRequire, syncBuiltinESMExports } from "node:module";
import type { EntryResult } from "../../../conformance/findings/findings.js";
import { checkInWorkers } from "../../../conformance/run/worker-pool.js";
import { runMain } from "./in-process.js";

const [mode, ...args] = process.argv.slice(2);
if (mode === "pool") {
  const stops: string[] = [];
  const results: EntryResult[] = [];
  for await (const r of checkInWorkers(
    2,
    args,
    { command: "check", basePaths: [] },
    undefined,
    (file, reason) => stops.push(`${file}: ${reason}`),
  ))
    results.push(r);
  process.stdout.write(JSON.stringify({ stops, results }));
} else {
  const os = createRequire(import.meta.url)("node:os") as { availableParallelism: () => number };
  os.availableParallelism = () => 2;
  syncBuiltinESMExports();
  process.stdout.write(JSON.stringify(await runMain(args)));
}
