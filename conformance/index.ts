// The programmatic API of the conformance suite (`idv-contract/conformance`).
import { AjvCompiler } from "../src/contract/ajv-compiler.js";
import type { Json } from "./checks/contract-model.js";
import { bundledContract } from "./checks/load-contract.js";
import { type ConformanceChecker, type ConformanceOptions, checkerFor } from "./run/open-checker.js";

export type {
  Exchange,
  HeaderMap,
  NotRecorded,
  RecordedBody,
  RecordedRequest,
  RecordedResponse,
} from "./traffic/exchange.js";
export type { CheckName, EntryResult, Finding, FindingLocation, Summary } from "./findings/findings.js";
export { InputError } from "./traffic/input-error.js";
export { readContract } from "./checks/load-contract.js";
export {
  type ConformanceChecker,
  type ConformanceOptions,
  openConformanceChecker,
} from "./run/open-checker.js";
export {
  detectFormat,
  exchangeFromHar,
  exchangeFromNdjson,
  readExchanges,
  type TrafficFormat,
} from "./traffic/read-traffic.js";
export {
  describeNotice,
  exchangeFromAccessLog,
  exchangeFromKong,
  type GatewayFormat,
  type UnrecordedNotice,
} from "./traffic/gateway-logs.js";
export {
  createReporter,
  type Reporter,
  type ReporterOptions,
  type ReportFormat,
} from "./findings/reporters.js";
export type { ContractFile } from "./findings/contract-location.js";
export type { CoverageSummary } from "./findings/github.js";
export { CHECK_RULES, type CheckRule } from "./findings/rules.js";
export { type RunOptions, runAll } from "./run/run.js";
export type { WebhookChecker } from "./checks/webhooks.js";

/** Create a checker for a contract (the bundled one by default); validators compile on first use. */
export function createConformanceChecker(options: ConformanceOptions = {}): ConformanceChecker {
  const document = options.spec ?? bundledContract();
  return checkerFor(document, new AjvCompiler(document), options.basePaths);
}

/** Create a checker of webhook deliveries (loads the AsyncAPI contract only when asked for). */
export async function createWebhookChecker(
  options: { spec?: Json; specFile?: string } = {},
): Promise<import("./checks/webhooks.js").WebhookChecker> {
  const webhooks = await import("./checks/webhooks.js");
  return webhooks.createWebhookChecker(options);
}
