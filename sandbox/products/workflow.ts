// Workflow cases (the service's guided flows): created and completed through the control API, each
// completion the case.completed delivery; its records and its slice of the --state file.
import type { components } from "../../generated/sandbox-control-types.js";
import { CONTROL_PREFIX } from "../http/paths.js";
import { isObject } from "../state/checks.js";
import type { ProductSlice } from "../state/store.js";
import type { ServiceSandbox } from "./context.js";

/** A workflow case, created and completed through the control API: its shape is the control contract's. */
export type WorkflowCase = components["schemas"]["WorkflowCase"];

/** Workflow cases, by case id; the state file holds [id, record] pairs. */
export const WORKFLOW: ProductSlice<number, WorkflowCase> = {
  name: "workflow",
  saved: { form: "entries" },
  restorable: isObject,
};

/** A workflow case in open, from the control API's request (or a trigger's defaults); not yet kept. */
export function newWorkflowCase(
  sandbox: Pick<ServiceSandbox, "nextId" | "baseUrl">,
  value: {
    external_id?: string;
    guided_flow_id?: number;
    service_name?: string;
    service_external_id?: string;
  },
): WorkflowCase {
  const id = sandbox.nextId("workflow");
  return {
    case_id: id,
    external_id: value.external_id ?? null,
    guided_flow_id: value.guided_flow_id ?? 311,
    status: "open",
    case_url: `${sandbox.baseUrl}${CONTROL_PREFIX}/workflow_cases/${id}`,
    service: {
      id: sandbox.nextId("workflow-service"),
      name: value.service_name ?? "Sandbox Trading Limited",
      external_id: value.service_external_id ?? null,
      approval_status: null,
    },
  };
}

/** Complete a workflow case: the case.completed delivery when it was created with an external_id. */
export function completeWorkflow(
  sandbox: ServiceSandbox,
  record: WorkflowCase,
  approval: "approved" | "denied",
): void {
  record.status = "completed";
  record.service.approval_status = approval;
  const { external_id } = record;
  if (external_id !== null) {
    // The record as it now is; the members the event's type requires, as they now are.
    const payload = {
      ...record,
      external_id,
      status: "completed" as const,
      service: { ...record.service, approval_status: approval },
    };
    sandbox.emit("workflowCase", "case.completed", String(record.case_id), payload, {
      "X-Workflow-Event-Type": "case.completed",
    });
  }
  sandbox.records.put(WORKFLOW, record.case_id, record);
}
