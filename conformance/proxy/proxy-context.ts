// What the proxy is given, what every exchange it forwards shares, and the shape of its own errors.
import type { request as httpRequest, ServerResponse } from "node:http";
import type { SafeHandler } from "../../src/server/handler.js";
import { shapeOfPath } from "../../src/server/operations.js";
import type { EntryResult } from "../findings/findings.js";
import type { ConformanceChecker } from "../run/open-checker.js";
import type { HarExchange } from "./har.js";
import type { RouteTable } from "../../src/contract/router.js";
import type { OperationModel } from "../checks/contract-model.js";
import type { BudgetHolder, OnWait } from "./budget.js";

/** Far above the largest upload the service takes (10 MB): bodies up to this are checked. */
export const DEFAULT_CAPTURE_BYTES = 12 * 1024 * 1024;
/** The bytes the proxy holds of all its exchanges at once (`memoryBytes`), bodies and their copies. */
export const DEFAULT_MEMORY_BYTES = 256 * 1024 * 1024;

/**
 * The most one exchange may hold: both bodies kept, and one joined or decoded copy at a time; with
 * signing, the body read to be signed too. The budget must hold at least that much.
 */
export const perExchangeBytes = (captureBytes: number, signing: boolean): number =>
  (signing ? 4 : 3) * captureBytes;

export interface ProxyOptions {
  /** The service's base URL (http or https); the request's path and query are appended to its path. */
  upstream: URL;
  checker: ConformanceChecker;
  port?: number;
  host?: string;
  /** Bodies larger than this are forwarded whole but not checked (default 12 MiB). */
  captureBytes?: number;
  /**
   * The bytes the proxy holds at once for all its exchanges (default 256 MiB; at least
   * `perExchangeBytes`): past it, reading from the clients and the service pauses until bytes are
   * given back. Nothing is dropped for want of it.
   */
  memoryBytes?: number;
  /** Told each time an exchange begins to wait for the budget (how many wait now). */
  onMemoryWait?: OnWait;
  /** Called with each exchange's verdict as it completes. */
  onResult?: (result: EntryResult) => void;
  /** Called with each exchange that could not be checked, and why (never a recorded value). */
  onUnchecked?: (method: string, why: string) => void;
  /** Called with each completed exchange, for the recording. */
  onExchange?: (exchange: HarExchange) => void;
  /** Awaited before each request is forwarded: a consumer slower than the traffic (the recording) holds it back. */
  ready?: () => Promise<void>;
  /**
   * Wraps the handler: `--sign` adds each request's credentials before it is forwarded (sign-upstream.ts),
   * finding each request's operation by the routes of the checker's model.
   */
  sign?: (
    handle: SafeHandler,
    routes: RouteTable<OperationModel>,
    holderOf: (res: ServerResponse) => BudgetHolder,
  ) => SafeHandler;
}

/** What every exchange the proxy forwards shares. */
export interface ProxyContext {
  readonly options: ProxyOptions;
  readonly upstream: URL;
  /** node:http's or node:https's request, as the upstream's scheme says. */
  readonly send: typeof httpRequest;
  /** The upstream URL's path, without its final slash: the prefix of every forwarded path. */
  readonly basePath: string;
  /** The bytes of a body kept for the check. */
  readonly limit: number;
  /** The next exchange's index (exchanges are numbered as they complete). */
  nextIndex(): number;
  /** The exchange's share of the budget, opened when its request arrives and closed once it is done. */
  holderOf(res: ServerResponse): BudgetHolder;
}

/** The shape of the service's errors on a path (the servers' rule): shape A on manual verification, B elsewhere. */
export const proxyError = (status: number, message: string, pathname: string | undefined) =>
  shapeOfPath(pathname) === "A"
    ? {
        metadata: {
          reference: null,
          external_id: null,
          timestamp: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
          api_version: "v2",
          request_id: "proxy",
        },
        message,
        error_type: status >= 500 ? "SYSTEM" : "PROXY_REQUEST",
      }
    : { error_code: status >= 500 ? "PROXY_UPSTREAM" : "PROXY_REQUEST", message };
