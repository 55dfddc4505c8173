// The defect server as a command: one defect (or none) in front of a running sandbox.
//   tsx bench/probe-defects/cli.ts --upstream http://127.0.0.1:4010 [--defect NAME] [--port N]
//   BENCH_DEFECT=NAME tsx bench/probe-defects/cli.ts --upstream …      (--list: the defects, one a line)
import { parseArgs } from "node:util";
import { DEFECTS, defectNamed } from "./defects.js";
import { startDefectServer } from "./server.js";

const { values } = parseArgs({
  options: {
    upstream: { type: "string" },
    defect: { type: "string" },
    port: { type: "string" },
    list: { type: "boolean" },
  },
});
if (values.list) {
  for (const d of DEFECTS) console.log(`${d.name}\t${d.kind}\t${d.operations.join(",")}\t${d.description}`);
  process.exit(0);
}
const name = values.defect ?? process.env.BENCH_DEFECT;
const defect = name ? defectNamed(name) : undefined;
if (name && !defect) {
  console.error(`no defect ${JSON.stringify(name)} (--list names them)`);
  process.exit(2);
}
if (!values.upstream) {
  console.error("--upstream URL (the sandbox) is required");
  process.exit(2);
}
const server = await startDefectServer({
  upstream: values.upstream,
  defect,
  port: values.port ? Number(values.port) : 0,
});
console.log(`${server.url} ${defect ? `defect ${defect.name}` : "clean pass-through"}`);
const stop = () => void server.close().then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
