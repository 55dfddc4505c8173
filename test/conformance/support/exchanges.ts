import { type ExampleExchange, exampleExchanges } from "../../../bench/corpus-examples.js";
import type { Exchange } from "../../../conformance/traffic/exchange.js";
import { createConformanceChecker } from "../../../conformance/index.js";
import { loadOpenApi } from "../../support/contract.js";

export const contract = loadOpenApi();
export const examples: ExampleExchange[] = exampleExchanges(contract);
export const checker = createConformanceChecker();

/** A fresh copy of the valid example exchange of an operation (and status and media type when given). */
export function example(operationId: string, status = 200, mediaType?: string): Exchange {
  const found = examples.find(
    (e) =>
      e.operationId === operationId &&
      e.status === status &&
      (mediaType === undefined || e.mediaType === mediaType),
  );
  if (!found) throw new Error(`no example exchange for ${operationId} ${status} ${mediaType ?? ""}`);
  return structuredClone(found.exchange);
}

/** The JSON value of a text body. */
// Test data is edited structurally.
export function bodyJson(body: Exchange["request"]["body"]): any {
  if (body?.kind !== "text") throw new Error("not a text body");
  return JSON.parse(body.text);
}

/** A text body holding JSON. */
export const jsonText = (value: unknown) => ({ kind: "text" as const, text: JSON.stringify(value) });
