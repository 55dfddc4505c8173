// Coverage in a `check` or `webhooks` run (--coverage FILE, --min-coverage KIND=PCT): what the
// checked entries reached, from this thread or merged from the workers, made into a report once the
// run ends.
import type { Writable } from "node:stream";
import { type CliIo, closeOut, openOut } from "../run/command.js";
import { buildReport, type CoverageReport } from "./report.js";
import { SeenLocations } from "./seen.js";
import { jsonText } from "../findings/shown.js";
import { loadCoverageIndex } from "./coverage-index.js";
import { belowThresholds, coverageSummary } from "./summary.js";
import type { CoverageKind } from "./seen.js";
import type { Json } from "../../src/contract/json.js";

/** What a run was asked of coverage. */
export interface CoverageRequest {
  command: "check" | "webhooks";
  spec?: string;
  /** --coverage FILE */
  coverage?: string;
  /** --min-coverage, read */
  thresholds: Map<CoverageKind, number>;
}

/** A run's coverage: where it is recorded, and how the run ends it (false: below a threshold). */
export interface CoverageRun {
  seen: SeenLocations;
  /**
   * The --spec document as the run's checker read it: the report then counts against it, and against
   * the model and schema nodes its hooks built, instead of reading and building them again.
   */
  useContract(document: unknown): void;
  /** The report of what was reached so far (made once, when first asked for). */
  report(): Promise<CoverageReport>;
  finish(text: Writable | undefined, io: CliIo): Promise<boolean>;
}

/** Each kind's counts, as the GitHub job summary shows them. */
export const kindTotals = (
  report: CoverageReport,
): { kinds: { kind: string; covered: number; total: number }[] } => ({
  kinds: Object.entries(report.kinds).map(([kind, k]) => ({ kind, covered: k.covered, total: k.total })),
});

/**
 * The report of what `seen` holds, against the run's contract: `read`, the --spec document as the
 * checker read it, when given; else the bundled one, or --spec read here (a run with workers).
 */
export async function reportOf(
  request: Pick<CoverageRequest, "command" | "spec">,
  seen: SeenLocations,
  read?: Json,
): Promise<CoverageReport> {
  await loadCoverageIndex();
  const { identityOf, httpUniverse } = await import("./universe.js");
  if (request.command === "check") {
    const { bundledContract, readContract } = await import("../checks/load-contract.js");
    const document = read ?? (request.spec ? await readContract(request.spec) : bundledContract());
    return buildReport("check", identityOf(document, "openapi"), httpUniverse(document), seen);
  }
  const { readAsyncApi, bundledAsyncApi } = await import("../checks/webhooks.js");
  const { webhookUniverse } = await import("./webhook-universe.js");
  const document = read ?? (request.spec ? await readAsyncApi(request.spec) : bundledAsyncApi());
  return buildReport("webhooks", identityOf(document, "asyncapi"), webhookUniverse(document), seen);
}

/** A report as its file holds it: two-space JSON, then a newline. */
export const reportText = (report: CoverageReport): string => `${jsonText(report, 2)}\n`;

/**
 * Start a run's coverage; the --coverage file is opened now, so that a bad path costs nothing. Its
 * end writes the report file, adds the summary to a text report and tells on stderr each threshold
 * the coverage falls short of.
 */
export async function startCoverageRun(request: CoverageRequest): Promise<CoverageRun> {
  const out = request.coverage === undefined ? undefined : await openOut(request.coverage);
  const seen = new SeenLocations();
  let read: Json | undefined;
  let made: Promise<CoverageReport> | undefined;
  const report = () => (made ??= reportOf(request, seen, read));
  return {
    seen,
    useContract(document) {
      if (request.spec !== undefined) read = document;
    },
    report,
    async finish(text, io) {
      const whole = await report();
      if (out) {
        out.write(reportText(whole));
        await closeOut(out);
      }
      text?.write(`\n${coverageSummary(whole, request.coverage)}`);
      const short = belowThresholds(whole, request.thresholds);
      for (const line of short) io.stderr.write(`idv-conformance: ${line}\n`);
      return short.length === 0;
    },
  };
}
