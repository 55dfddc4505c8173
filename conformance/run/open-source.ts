// The checker of a command, for the CLI and its worker threads alike.
import type { EntryResult } from "../findings/findings.js";
import { InputError } from "../traffic/input-error.js";
import type { UnrecordedNotice } from "../traffic/gateway-logs.js";
import { stderrNotices } from "./notices.js";
import type { WorkerJob } from "./worker-pool.js";
import type { SeenLocations } from "../coverage/seen.js";

/**
 * Open the checker of a command, once, and give what checks a file with it. Each command loads only its
 * own contract and checker: start-up is part of the time to first verdict. With `hooks.coverage`, what
 * the checked entries reach of the contract is recorded there.
 */
export async function openSource(
  options: WorkerJob,
  hooks: {
    /** What a gateway log does not record (stderr, once a run, by default). */
    onNotice?: (notice: UnrecordedNotice) => void;
    /** Where what the checked entries reach of the contract is recorded. */
    coverage?: SeenLocations;
    /** Given the --spec document once read, so that nothing reads it again (a report points into it). */
    onContract?: (document: unknown) => void;
  } = {},
): Promise<(file: string) => AsyncIterable<EntryResult>> {
  const { coverage, onNotice = stderrNotices() } = hooks;
  if (options.command === "check") {
    const { openConformanceChecker } = await import("./open-checker.js");
    const { readContract } = await import("../checks/load-contract.js");
    const spec = options.spec ? await readContract(options.spec) : undefined;
    if (spec !== undefined) hooks.onContract?.(spec);
    let checker: Awaited<ReturnType<typeof openConformanceChecker>>;
    try {
      checker = await openConformanceChecker({ spec, basePaths: options.basePaths, coverage });
    } catch (error) {
      // A contract that cannot be modelled (a $ref that points nowhere) is the --spec file's fault.
      if (!options.spec || error instanceof InputError || !(error instanceof Error)) throw error;
      throw new InputError(options.spec, `cannot be used as the contract: ${error.message}`);
    }
    return (file) => checker.checkFile(file, undefined, onNotice);
  }
  const { createWebhookChecker, readAsyncApi } = await import("../checks/webhooks.js");
  const spec = options.spec ? await readAsyncApi(options.spec) : undefined;
  if (spec !== undefined) hooks.onContract?.(spec);
  const checker = await createWebhookChecker({ spec, coverage });
  return (file) => checker.checkFile(file);
}
