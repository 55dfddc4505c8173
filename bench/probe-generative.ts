// npm run bench:probe (after bench/probe.ts): the probe, and Schemathesis 4.x when it is on PATH,
// against the compiled sandbox behind each of the sixteen injected defects of bench/probe-defects/
// (issue 46), and behind the clean pass-through. Each run is restricted to the defect's operations
// (both tools alike), with the same seed and the same wall budget; a defect is caught by a tool when
// its run fails on an operation the defect touches while its clean run with the same operations and
// seed does not. Writes its section of docs/benchmarks.md and its table in docs/other-tools.md.
import { median, writeBenchSection } from "../scripts/lib/benchmarks-md.js";
import { PHASES } from "../conformance/probe/probe-case.js";
import type { Defect } from "./probe-defects/defect.js";
import { DEFECTS } from "./probe-defects/defects.js";
import {
  probeArgs,
  type RunPlan,
  runProbe,
  runSchemathesis,
  schemathesisCommand,
  type ToolRun,
} from "./probe-generative-runs.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const SEED = Number(process.env.BENCH_SEED ?? 46);
/** The wall budget of a run over every operation (the clean proxy's false-alarm run). */
const FULL_SECONDS = Number(process.env.BENCH_FULL_SECONDS ?? 90);
/** The wall budget of a run restricted to a defect's operations, the same for both tools. */
const SCOPED_SECONDS = Number(process.env.BENCH_SCOPED_SECONDS ?? 30);
const ALL_OPERATIONS = [...new Set(DEFECTS.flatMap((d) => d.scope))];

type Tool = "probe" | "schemathesis";
const st = schemathesisCommand();
const tools: Tool[] = st ? ["probe", "schemathesis"] : ["probe"];

function run(tool: Tool, plan: RunPlan): Promise<ToolRun> {
  return tool === "probe" ? runProbe(plan) : runSchemathesis(st as string, plan, ALL_OPERATIONS);
}

/** Per tool and defect, the rounds' verdicts and figures. */
interface Cell {
  caught: boolean[];
  phases: Set<string>;
  requests: number[];
  seconds: number[];
  cut: boolean;
}
const cells = new Map<string, Cell>();
const falseAlarms = new Map<Tool, Set<string>>();
const cellOf = (tool: Tool, name: string): Cell => {
  const key = `${tool} ${name}`;
  const cell = cells.get(key) ?? { caught: [], phases: new Set(), requests: [], seconds: [], cut: false };
  cells.set(key, cell);
  return cell;
};

const started = performance.now();
for (let round = 0; round < ROUNDS; round++) {
  const seed = SEED + round;
  for (const tool of tools) {
    const full = await run(tool, {
      defect: undefined,
      operations: undefined,
      seed,
      budgetSeconds: FULL_SECONDS,
    });
    const alarms = falseAlarms.get(tool) ?? new Set<string>();
    for (const op of full.failedOperations) alarms.add(op);
    falseAlarms.set(tool, alarms);
    record(tool, "(clean, every operation)", full, false);
    console.log(
      `${tool} clean: ${full.requests} requests, ${full.seconds.toFixed(1)} s, failed on [${[...full.failedOperations]}]`,
    );
    // One clean run per set of operations: the reference of every defect restricted to it.
    const cleanByScope = new Map<string, ToolRun>();
    for (const defect of DEFECTS) {
      const scope = defect.scope.join(",");
      let clean = cleanByScope.get(scope);
      if (!clean) {
        clean = await run(tool, {
          defect: undefined,
          operations: defect.scope,
          seed,
          budgetSeconds: SCOPED_SECONDS,
        });
        cleanByScope.set(scope, clean);
        for (const op of clean.failedOperations) alarms.add(op);
      }
      const broken = await run(tool, {
        defect,
        operations: defect.scope,
        seed,
        budgetSeconds: SCOPED_SECONDS,
      });
      const caught = defect.operations.some(
        (op) => broken.failedOperations.has(op) && !clean.failedOperations.has(op),
      );
      record(tool, defect.name, broken, caught, defect);
      console.log(
        `${tool} ${defect.name}: ${caught ? "caught" : "missed"}, ${broken.requests} requests, ${broken.seconds.toFixed(1)} s`,
      );
    }
  }
}
const benchSeconds = (performance.now() - started) / 1000;

function record(tool: Tool, name: string, r: ToolRun, caught: boolean, defect?: Defect): void {
  const cell = cellOf(tool, name);
  cell.caught.push(caught);
  cell.requests.push(r.requests);
  cell.seconds.push(r.seconds);
  cell.cut ||= r.cut;
  if (defect && caught)
    for (const op of defect.operations)
      for (const phase of r.phasesByOperation.get(op) ?? []) cell.phases.add(phase);
}

const spread = (v: number[], digits: number) =>
  v.length > 1 ? ` (${Math.min(...v).toFixed(digits)}–${Math.max(...v).toFixed(digits)})` : "";
/** Requests and wall time, medians over the rounds with their spread: two table cells. */
const figures = (c: Cell) =>
  `${median(c.requests).toFixed(0)}${spread(c.requests, 0)} | ${median(c.seconds).toFixed(2)} s${spread(c.seconds, 2)}${c.cut ? " (cut at the budget)" : ""}`;
const verdict = (c: Cell) => {
  const hits = c.caught.filter(Boolean).length;
  if (hits === 0) return "no";
  return hits === c.caught.length ? "yes" : `${hits} of ${c.caught.length} rounds`;
};
const count = (tool: Tool) => DEFECTS.filter((d) => cellOf(tool, d.name).caught.every(Boolean)).length;
const alarmText = (tool: Tool) => {
  const ops = [...(falseAlarms.get(tool) ?? [])];
  return ops.length === 0 ? "none" : `failed on ${ops.map((o) => `\`${o}\``).join(", ")}`;
};

const args = probeArgs(
  { defect: undefined, operations: ["ID,…"], seed: SEED, budgetSeconds: SCOPED_SECONDS },
  "URL",
)
  .join(" ")
  .replace("--base-url URL", "--base-url PROXY");
const stHeader = st ? " Schemathesis | requests | wall |" : "";
const stRule = st ? "---|---:|---:|" : "";
const rows = DEFECTS.map((d) => {
  const p = cellOf("probe", d.name);
  const s = st
    ? ` ${verdict(cellOf("schemathesis", d.name))} | ${figures(cellOf("schemathesis", d.name))} |`
    : "";
  return `| \`${d.name}\` | ${d.kind} | ${d.operations.map((o) => `\`${o}\``).join(", ")} | ${d.trigger} | ${d.examplesTrigger ? "yes" : "no"} | ${verdict(p)} | ${[...p.phases].join(", ") || "—"} | ${figures(p)} |${s}`;
});
const clean = cellOf("probe", "(clean, every operation)");
const stLine = st
  ? `Schemathesis (\`${st}\`, through \`idv-conformance proxy --sign\`, which signs its requests and counts them) caught **${count("schemathesis")} of ${DEFECTS.length}**; false alarms on the clean proxy: ${alarmText("schemathesis")}.`
  : "Schemathesis not installed: not run (neither `schemathesis` nor `st` is on PATH; PyPI is not reachable from this machine). Its column is left out rather than guessed.";

writeBenchSection(
  "probe-generative",
  `## Probe beside Schemathesis on injected defects (\`npm run bench:probe\`)

Sixteen defects a service could ship ([bench/probe-defects/](../bench/probe-defects/defects.ts)), each
reached only by some inputs, injected one at a time by a server in front of the compiled sandbox;
the clean pass-through is the reference. For each defect, each tool runs against a fresh sandbox
restricted to the defect's operations (the probe \`--operations\`, Schemathesis
\`--include-operation-id\`: the same for both), with the same seed and the same wall budget
(${SCOPED_SECONDS} s; ${FULL_SECONDS} s for the clean run over every operation), ${ROUNDS} round(s), seed ${SEED}
and up. A defect is caught when the tool's run fails on an operation the defect touches and its
clean run with the same operations and seed does not. The probe runs as users run it:
\`idv-conformance ${args}\` (phases: ${PHASES.join(", ")}); Schemathesis as its benchmarking guide
runs it, \`st run generated/openapi.json --seed N --include-operation-id … --max-time BUDGET
--continue-on-failure --no-shrink --suppress-health-check all\`, behind \`idv-conformance proxy --sign\`
(it cannot sign v4 requests), whose count of exchanges is its requests. Either is stopped at its
budget plus 60 s. Wall time is from spawning the tool to its exit, the sandbox's start excluded.
"Examples reach it" says whether a request example of the contract meets the trigger
(test/bench/probe-defects.test.ts checks every one).

| Defect | Kind | Operations | Trigger | Examples reach it | Probe caught | by phase | requests | wall |${stHeader}
|---|---|---|---|---|---|---|---:|---:|${stRule}
${rows.join("\n")}

The probe caught **${count("probe")} of ${DEFECTS.length}**; false alarms on the clean proxy: ${alarmText("probe")}
(its run over every operation: ${median(clean.requests).toFixed(0)} requests, ${median(clean.seconds).toFixed(2)} s). ${stLine}

The issue's own figure, measured before this bench with its own defects (the issue's words, not
this run's): "Schemathesis caught 9, the probe 2."

The whole bench took ${benchSeconds.toFixed(0)} s.`,
);
writeBenchSection(
  "probe-generative",
  `What the probe's phases catch of the sixteen defects of \`npm run bench:probe\` (docs/benchmarks.md,
section "Probe beside Schemathesis on injected defects"): ${count("probe")} of ${DEFECTS.length}, false alarms on
the clean sandbox: ${alarmText("probe")}. ${st ? "Schemathesis' column is from the same run." : "Schemathesis was not installed where it ran: its column is left out, not guessed."}

| Defect | Kind | Probe | by phase |${st ? " Schemathesis |" : ""}
|---|---|---|---|${st ? "---|" : ""}
${DEFECTS.map((d) => {
  const p = cellOf("probe", d.name);
  return `| \`${d.name}\` | ${d.kind} | ${verdict(p)} | ${[...p.phases].join(", ") || "—"} |${st ? ` ${verdict(cellOf("schemathesis", d.name))} |` : ""}`;
}).join("\n")}`,
  "docs/other-tools.md",
);
console.log(
  `wrote docs/benchmarks.md and docs/other-tools.md (probe-generative) in ${benchSeconds.toFixed(0)} s`,
);
