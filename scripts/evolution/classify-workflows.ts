// The released workflows (arazzo/) against the contract now: a workflow whose step calls an
// operation, or awaits an event, that the contract no longer has cannot run any more, so an
// integrator who follows it breaks. Each such reference is one breaking change.
import type { ArazzoFile } from "../../src/arazzo/documents.js";
import { unresolvedReferences } from "../arazzo/resolve.js";
import type { ContractChange, ContractVersion } from "./change.js";

/** A breaking change for every reference of the earlier workflows that the contract now does not resolve. */
export function workflowChanges(before: ArazzoFile[] | undefined, after: ContractVersion): ContractChange[] {
  return (before ?? []).flatMap((file) =>
    unresolvedReferences(file, after.openapi ?? {}, after.asyncapi ?? {}).map((u) => {
      const where = `workflow \`${u.workflowId}\``;
      const what = u.kind === "operation" ? "calls" : "awaits";
      return {
        // An awaited event is what a receiver reads; an operation is what a client calls.
        audience: u.kind === "operation" ? ("client" as const) : ("receiver" as const),
        breaking: true,
        where,
        // The step is the member, so a CHANGELOG bullet naming the step records it.
        member: `step \`${u.stepId}\``,
        text: `${where}: step \`${u.stepId}\` (${file.path}) ${what} what the contract no longer has: ${u.why}.`,
      };
    }),
  );
}
