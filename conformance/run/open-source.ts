// The checker of a command, for the CLI and its worker threads alike.
import type { EntryResult } from "../findings/findings.js";
import { InputError } from "../traffic/input-error.js";
import type { UnrecordedNotice } from "../traffic/gateway-logs.js";
import { stderrNotices } from "./notices.js";
import type { WorkerJob } from "./worker-pool.js";

/**
 * Open the checker of a command, once, and give what checks a file with it. Each command loads only its
 * own contract and checker: start-up is part of the time to first verdict.
 */
export async function openSource(
  options: WorkerJob,
  onNotice: (notice: UnrecordedNotice) => void = stderrNotices(),
): Promise<(file: string) => AsyncIterable<EntryResult>> {
  if (options.command === "check") {
    const { openConformanceChecker } = await import("./open-checker.js");
    const { readContract } = await import("../checks/load-contract.js");
    const spec = options.spec ? await readContract(options.spec) : undefined;
    let checker: Awaited<ReturnType<typeof openConformanceChecker>>;
    try {
      checker = await openConformanceChecker({ spec, basePaths: options.basePaths });
    } catch (error) {
      // A contract that cannot be modelled (a $ref that points nowhere) is the --spec file's fault.
      if (!options.spec || error instanceof InputError || !(error instanceof Error)) throw error;
      throw new InputError(options.spec, `cannot be used as the contract: ${error.message}`);
    }
    return (file) => checker.checkFile(file, undefined, onNotice);
  }
  const { createWebhookChecker } = await import("../checks/webhooks.js");
  const checker = await createWebhookChecker({ specFile: options.spec });
  return (file) => checker.checkFile(file);
}
