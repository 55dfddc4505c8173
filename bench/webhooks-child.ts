// One side of the webhook deduper benchmark, run in its own process (compiled, plain node) so that
// each side's memory is its own.
//   node webhooks-child.js MODULE.js IDS ID_BYTES → one JSON line: {firstUs, pastCapUs, maxRssMb, duplicates}
// MODULE.js exports createDeduper (the helpers as they are, or as they were before the fix).
import { resourceUsage } from "node:process";
import asyncapi from "../generated/asyncapi.json" with { type: "json" };

type Deduper = { isDuplicate(event: unknown): Promise<boolean> };
const [modulePath, idsArg, idBytesArg] = process.argv.slice(2) as [string, string, string];
const { createDeduper } = (await import(modulePath)) as { createDeduper: () => Deduper };
const ids = Number(idsArg);
const idBytes = Number(idBytesArg);
// The in-memory store's default cap, the same before and after: deliveries past it evict.
const CAP = 100_000;

// The contract's own workflow delivery; only its X-Workflow-Webhook-Id changes, to a distinct
// id of ID_BYTES base64url characters (the schema asks only for a non-empty string).
const example = asyncapi.channels.workflowCase.messages.caseCompleted.examples[0]!;
const id = Buffer.alloc(idBytes, "A");
const deduper = createDeduper();
let first = 0n;
let pastCap = 0n;
let duplicates = 0;
for (let i = 0; i < ids; i++) {
  // A fresh flat string per delivery, as a server's header parser hands over; made untimed.
  id.write(i.toString(36).padStart(8, "0"), 0, "latin1");
  const event = {
    kind: "workflowCase",
    event: "case.completed",
    payload: example.payload,
    webhookId: id.toString("latin1"),
  };
  const start = process.hrtime.bigint();
  if (await deduper.isDuplicate(event)) duplicates++;
  const took = process.hrtime.bigint() - start;
  if (i < CAP) first += took;
  else pastCap += took;
}
const firstCount = Math.min(ids, CAP);
const pastCount = ids - firstCount;
console.log(
  JSON.stringify({
    firstUs: Number(first) / 1000 / firstCount,
    pastCapUs: pastCount > 0 ? Number(pastCap) / 1000 / pastCount : null,
    maxRssMb: resourceUsage().maxRSS / 1024,
    duplicates,
  }),
);
