// The service's operations on the sandbox's state: each create makes a record from the request, each
// read returns it, each download is a real PDF (or zip) of it, and unknown ids get the operation's 404.
// The handlers are the products' own (products/index.ts lists them).
import type { Answer } from "../../src/server/answer.js";
import { error } from "./answers.js";
import type { ServiceOperationId, ServiceRequest, ServiceSandbox } from "./context.js";
import { serviceHandlers } from "./index.js";
import { eraseArchived } from "./records.js";

/** What the HTTP layer sends: JSON, or bytes with their type and file name (src/server's answer). */
export type { Answer } from "../../src/server/answer.js";
export type { ServiceRequest } from "./context.js";

/** Answer one accepted request of the service's contract. */
export function answerService(sandbox: ServiceSandbox, req: ServiceRequest): Answer {
  const { op } = req;
  const handler = Object.hasOwn(serviceHandlers, op.operationId)
    ? serviceHandlers[op.operationId as ServiceOperationId]
    : undefined;
  if (!handler)
    return error(
      op,
      500,
      op.shape === "A" ? "SYSTEM" : "SANDBOX_ERROR",
      "The sandbox has no answer for this operation.",
    );
  const store = sandbox.records;
  const archive: Parameters<typeof handler>[0]["archive"] = (kind, key, record) => {
    if (req.head) return;
    record.archived = true;
    eraseArchived(record);
    // Counted again as it now is (erased), and saved.
    store.put(kind, key, record);
  };
  return handler({
    sandbox,
    store,
    req,
    op,
    value: req.value,
    now: sandbox.now(),
    param: req.params[0],
    archive,
    exportOnce: (kind, key, record, render) => {
      if (record.archived) return error(op, 400, "ALREADY_ARCHIVED", "The report was exported and archived.");
      // The report first: archiving erases the personal data it shows.
      const answer = render();
      archive(kind, key, record);
      return answer;
    },
  });
}
