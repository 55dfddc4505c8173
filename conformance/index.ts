// The programmatic API of the conformance suite (`idv-contract/conformance`).
import { AjvCompiler } from "./ajv-compiler.js";
import type { Json } from "./contract-model.js";
import { bundledContract } from "./load-contract.js";
import { type ConformanceChecker, type ConformanceOptions, checkerFor } from "./open-checker.js";

export type { Exchange, HeaderMap, RecordedBody, RecordedRequest, RecordedResponse } from "./exchange.js";
export type { CheckName, EntryResult, Finding, FindingLocation, Summary } from "./findings.js";
export { InputError } from "./input-error.js";
export { readContract } from "./load-contract.js";
export { type ConformanceChecker, type ConformanceOptions, openConformanceChecker } from "./open-checker.js";
export {
  detectFormat,
  exchangeFromHar,
  exchangeFromNdjson,
  readExchanges,
  type TrafficFormat,
} from "./read-traffic.js";
export { createReporter, type Reporter, type ReportFormat } from "./reporters.js";
export { type RunOptions, runAll } from "./run.js";
export type { WebhookChecker } from "./webhooks.js";

/** Create a checker for a contract (the bundled one by default); validators compile on first use. */
export function createConformanceChecker(options: ConformanceOptions = {}): ConformanceChecker {
  const document = options.spec ?? bundledContract();
  return checkerFor(document, new AjvCompiler(document), options.basePaths);
}

/** Create a checker of webhook deliveries (loads the AsyncAPI contract only when asked for). */
export async function createWebhookChecker(
  options: { spec?: Json; specFile?: string } = {},
): Promise<import("./webhooks.js").WebhookChecker> {
  const webhooks = await import("./webhooks.js");
  return webhooks.createWebhookChecker(options);
}
