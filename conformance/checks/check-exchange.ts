// Every check of one recorded HTTP exchange: its route here, then the request (check-request.ts,
// check-form.ts) and the response (check-response.ts), with what both share in check-context.ts.
import type { ContractModel, OperationModel } from "./contract-model.js";
import { DescribedMembers } from "./described-members.js";
import type { Exchange } from "../traffic/exchange.js";
import { type EntryResult, FindingList } from "../findings/findings.js";
import { safeMethod, Vocabulary } from "../findings/vocabulary.js";
import { mergeWithheld } from "../findings/withheld.js";
import type { HttpCoverage } from "../coverage/http-coverage.js";
import { type CheckContext, list } from "./check-context.js";
import { checkParameters, checkRequestBody, checkSecurity } from "./check-request.js";
import { checkResponse } from "./check-response.js";

/** Checks recorded HTTP exchanges against a compiled contract. */
export class ExchangeChecker {
  private readonly ctx: CheckContext;

  /** @param coverage records what each exchange reached of the contract (only with --coverage) */
  constructor(
    private readonly model: ContractModel,
    coverage?: HttpCoverage,
  ) {
    this.ctx = {
      model,
      described: new DescribedMembers(model.document),
      vocabulary: new Vocabulary(model.document),
      coverage,
      constraints: new WeakMap(),
    };
  }

  /** Every check on one exchange; the result holds no recorded value that could identify anyone. */
  check(exchange: Exchange, file?: string): EntryResult {
    const { ctx } = this;
    const findings = new FindingList(ctx.vocabulary);
    const { request } = exchange;
    const method = safeMethod(request.method);
    const route = this.model.routes.match(request.method, request.path);
    let operation: OperationModel | undefined;
    if (route.kind === "found") {
      operation = route.target;
      const unknown = exchange.notRecorded;
      ctx.coverage?.operation(operation);
      // What the log did not record is unknown, not absent: its checks are not run (said once a run).
      if (!unknown?.requestHeaders) checkSecurity(ctx, operation, request.headers, findings);
      checkParameters(ctx, operation, route.params, exchange, findings);
      if (!unknown?.requestBody)
        checkRequestBody(
          ctx,
          operation,
          request.headers,
          request.body,
          findings,
          request.bodyNotRecorded,
          !unknown?.requestHeaders,
        );
      checkResponse(ctx, operation, exchange, findings);
    } else if (route.kind === "method-not-allowed") {
      findings.fail(
        "request.route",
        "route_known",
        "",
        `the contract has no ${method} operation on this path (documented: ${list(route.allowed)})`,
      );
    } else {
      findings.fail(
        "request.route",
        "route_known",
        "",
        `no path of the contract matches this path${route.hint ? `; ${route.hint}` : ""}`,
      );
    }
    const result: EntryResult = {
      index: exchange.index,
      method,
      path: operation ? operation.template : this.model.routes.shape(request.path),
      operationId: operation?.operationId ?? null,
      ok: findings.violations.length === 0,
      violations: findings.violations,
      warnings: findings.warnings,
    };
    if (file !== undefined) result.file = file;
    const status = exchange.response?.status;
    if (operation && typeof status === "number" && Number.isInteger(status)) result.status = status;
    if (exchange.line !== undefined) result.line = exchange.line;
    // Where the recording withheld a value, its stand-in's findings give way to the live ones.
    return exchange.withheld ? mergeWithheld(result, exchange.withheld, ctx.vocabulary) : result;
  }
}
