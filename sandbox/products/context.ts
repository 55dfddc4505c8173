// What a product's handlers get: the request, the sandbox as they may use it (its one record store,
// the biometric lifecycle, uploads, ids, events), and the helpers every download shares.
import type { operations } from "../../generated/types.js";
import type { Json } from "../../src/contract/json.js";
import type { Answer } from "../../src/server/answer.js";
import type { Operation } from "../../src/server/operations.js";
import type { Channel, EventOf, PayloadOf } from "../deliveries/types.js";
import type { RecordKind, RecordStore } from "../state/store.js";
import type { BiometricLifecycle } from "./biometric/lifecycle.js";
import type { AssetFiles } from "./files/asset-files.js";
import type { Archivable } from "./records.js";

export interface ServiceRequest {
  op: Operation;
  /** Path parameters, decoded, in template order. */
  params: string[];
  /** The accepted JSON body, if any. */
  value: Json;
  /** The raw body (for uploads). */
  body: Buffer;
  contentType: string | undefined;
  accept: string | undefined;
  /** A HEAD request: answered as GET, without the download's effects (archiving). */
  head: boolean;
}

/** The sandbox as the service's handlers see it (sandbox.ts's Sandbox is one). */
export interface ServiceSandbox {
  /** The one store of every product's records. */
  readonly records: RecordStore;
  readonly biometric: BiometricLifecycle;
  /** The bytes of EDD uploads, for their assets' download_url. */
  readonly assetFiles: AssetFiles;
  /** The address the sandbox answers on, for URLs in records. */
  readonly baseUrl: string;
  /** The next integer id of a kind of record. */
  nextId(kind: string): number;
  /** The virtual time, in epoch milliseconds. */
  now(): number;
  /** Queue an event the service sends, once the AsyncAPI contract accepts it. */
  emit<C extends Channel, E extends EventOf<C>>(
    channel: C,
    event: E,
    subject: string,
    payload: PayloadOf<C, E>,
    headers?: Record<string, string>,
  ): void;
}

/** What a handler of one operation gets: the request, the sandbox, and the helpers every download shares. */
export interface ServiceContext {
  sandbox: ServiceSandbox;
  /** The sandbox's record store (sandbox.records). */
  store: RecordStore;
  req: ServiceRequest;
  op: Operation;
  /** The accepted JSON body, if any. */
  value: Json;
  /** The virtual time, in epoch milliseconds. */
  now: number;
  /** The first path parameter (a transaction id or a record id), if any. */
  param: string | undefined;
  /** A download archives its record on the service (and erases it); a HEAD request only asks what it would get. */
  archive: <K, V extends Archivable>(kind: RecordKind<K, V>, key: K, record: V) => void;
  /** A report exports once: the export archives it, and another gets the service's 400. */
  exportOnce: <K, V extends Archivable>(
    kind: RecordKind<K, V>,
    key: K,
    record: V,
    render: () => Answer,
  ) => Answer;
}

/** The contract's operation ids, less its webhooks' (`…Event`: the service sends those, it does not answer them). */
export type ServiceOperationId = Exclude<keyof operations, `${string}Event`>;

/** The service's handlers by operation id: each product file gives its own, products/index.ts all. */
export type ServiceHandlers = { readonly [Id in ServiceOperationId]: (c: ServiceContext) => Answer };
