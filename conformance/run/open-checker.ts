// The HTTP checker without a static dependency on ajv's compiler: the CLI opens it with the validators
// generated at build time when they match the contract, so that start-up stays short.
import { ExchangeChecker } from "../checks/check-exchange.js";
import { ContractModel, type Json } from "../checks/contract-model.js";
import type { SchemaCompiler } from "../../src/contract/schema-compiler.js";
import type { Exchange } from "../traffic/exchange.js";
import type { EntryResult } from "../findings/findings.js";
import { checkEntry } from "../traffic/input-error.js";
import { bundledContract } from "../checks/load-contract.js";
import { openSchemaCompiler } from "../../src/contract/precompiled.js";
import { readExchanges, type TrafficFormat } from "../traffic/read-traffic.js";
import type { UnrecordedNotice } from "../traffic/gateway-logs.js";
import { type EntryRoute, UNREAD_ROUTE, unjudgedResult } from "../findings/unjudged.js";
import { safeMethod } from "../findings/vocabulary.js";
import type { HttpCoverage } from "../coverage/http-coverage.js";
import type { SeenLocations } from "../coverage/seen.js";

/** Options of a conformance checker. */
export interface ConformanceOptions {
  /** A bundled OpenAPI 3.x document; the package's own contract when omitted. */
  spec?: Json;
  /** Path prefixes to strip from recorded paths before matching, beside the servers' own. */
  basePaths?: string[];
  /** Where to record the contract locations checked exchanges reach (coverage); nothing is recorded without. */
  coverage?: SeenLocations;
}

/** Checks HTTP exchanges against an OpenAPI contract. */
export interface ConformanceChecker {
  /** Check one exchange. */
  checkExchange(exchange: Exchange, file?: string): EntryResult;
  /**
   * Check every exchange of a HAR, NDJSON or gateway log file, streaming; throws InputError on unusable
   * input. `onNotice` hears what a gateway log does not record (not checked, never a violation).
   */
  checkFile(
    file: string,
    format?: TrafficFormat,
    onNotice?: (notice: UnrecordedNotice) => void,
  ): AsyncGenerator<EntryResult>;
}

// The model each checker checks with, for the proxy's --sign (it routes by the same operations).
const models = new WeakMap<ConformanceChecker, ContractModel>();

/** The contract model a checker of checkerFor checks with; undefined for any other object. */
export const contractModelOf = (checker: ConformanceChecker): ContractModel | undefined =>
  models.get(checker);

/** A checker over a document and the compiler of its schemas. */
export function checkerFor(
  document: Json,
  compiler: SchemaCompiler,
  basePaths?: string[],
  coverage?: (model: ContractModel) => HttpCoverage,
): ConformanceChecker {
  const model = new ContractModel(document, compiler, basePaths);
  const checker = new ExchangeChecker(model, coverage?.(model));
  // An entry the readers marked unjudged is reported under the operation its request names, if any.
  const route = ({ request }: Exchange): EntryRoute => {
    if (request.method === "") return UNREAD_ROUTE;
    const found = model.routes.match(request.method, request.path);
    return found.kind === "found"
      ? {
          method: safeMethod(request.method),
          path: found.target.template,
          operationId: found.target.operationId,
        }
      : { method: safeMethod(request.method), path: model.routes.shape(request.path), operationId: null };
  };
  const check = (exchange: Exchange, file?: string): EntryResult =>
    exchange.unjudged ? unjudgedResult(exchange, route(exchange), file) : checker.check(exchange, file);
  const conformanceChecker: ConformanceChecker = {
    checkExchange: check,
    async *checkFile(file, format, onNotice) {
      for await (const exchange of readExchanges(file, format, onNotice))
        yield checkEntry(file, exchange, (x) => check(x, file));
    },
  };
  models.set(conformanceChecker, model);
  return conformanceChecker;
}

/** Open a checker: build-time validators when they were generated from this contract, ajv otherwise. */
/** The coverage hook of a run that asked for coverage, once the generated index is read. */
async function httpCoverage(seen: SeenLocations): Promise<(model: ContractModel) => HttpCoverage> {
  const { HttpCoverage: Coverage, coverageIndexRead } = await import("../coverage/http-coverage.js");
  await coverageIndexRead;
  return (model) => new Coverage(model, seen);
}

export async function openConformanceChecker(options: ConformanceOptions = {}): Promise<ConformanceChecker> {
  const document = options.spec ?? bundledContract();
  const seen = options.coverage;
  // Loaded only when coverage is asked for: a plain check does not pay for it.
  const coverage = seen ? await httpCoverage(seen) : undefined;
  return checkerFor(document, await openSchemaCompiler(document), options.basePaths, coverage);
}
