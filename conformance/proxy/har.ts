// The recording of the validating proxy and of the probe: a HAR 1.2 file written entry by entry,
// holding no credential and no personal value, that `check` judges as the traffic was judged live.
// Headers keep only the names and values the contract and HTTP describe (har-headers.ts); every other
// recorded value becomes a stand-in of the same shape (har-stand-ins.ts). Each entry is then read back
// and checked as `check` will: where a finding differs from the live verdict, the entry withholds
// those locations and carries the live findings there (findings/withheld.ts).
import { createWriteStream, type WriteStream } from "node:fs";
import { Vocabulary } from "../../src/vocabulary.js";
import type { EntryResult } from "../findings/findings.js";
import { StandIns } from "../findings/stand-ins.js";
import { safeMethod } from "../findings/vocabulary.js";
import {
  wholeEntry,
  type Withheld,
  withheldFor,
  withheldMember,
  WITHHELD_MEMBER,
} from "../findings/withheld.js";
import { openConformanceChecker, type ConformanceChecker } from "../run/open-checker.js";
import { exchangeFromHar } from "../traffic/read-traffic.js";
import { HeaderRedactor } from "./har-headers.js";
import { harContent, RecordingValues } from "./har-stand-ins.js";
import type { Json } from "../../src/contract/json.js";

/** One side of an exchange as the proxy saw it. */
export interface HarMessage {
  /** [name, value] pairs in the order received. */
  headers: [string, string][];
  /** The decoded body when it was kept whole; undefined when absent or over the capture limit. */
  body?: Buffer;
  /** The body's size in bytes as it crossed the proxy. */
  size: number;
}

/** An exchange for the recording. */
export interface HarExchange {
  startedAt: Date;
  durationMs: number;
  method: string;
  /** Where the request went: the upstream's origin, the path and query as sent (redacted by the recorder). */
  target: { origin: string; pathname: string; query: string };
  request: HarMessage;
  status: number;
  response: HarMessage;
  /** The prefix of `target.pathname` that is the service's own base path (kept as it is). */
  basePath?: string;
  /** The verdict of the check when the exchange happened: the recording is made to be judged the same. */
  verdict?: EntryResult;
}

/** What a recorder is given beside the file and the contract. */
export interface RecorderOptions {
  /** How much may wait for the disk before `ready` holds new exchanges back. */
  backlogBytes?: number;
  /** Path prefixes the traffic carries before the contract's paths (kept as they are). */
  basePaths?: string[];
  /** The checker that judges each entry as `check` will read it; one of the contract's when omitted. */
  checker?: ConformanceChecker;
  /** The stand-ins' HMAC key: a fresh random one unless a test fixes it. */
  key?: Buffer;
}

/** What the recording says of itself, in its log's comment. */
const RECORDING_COMMENT =
  "Every value that is not a word of the contract is a stand-in of the same shape (the same stand-in for the same value within this file, from a key that was not kept). An entry's _idvWithheld names the locations whose stand-ins are not judged as the values were, with the findings the check made there when the exchange was recorded.";

/** Bytes of entries waiting for the disk past which new exchanges are held back (see `ready`). */
export const RECORDING_BACKLOG_BYTES = 16 * 1024 * 1024;

/** Writes a HAR file entry by entry, so memory does not grow with the recording. */
export class HarRecorder {
  private first = true;
  private failed: Error | undefined;
  private draining: Promise<void> | undefined;

  private constructor(
    private readonly stream: WriteStream,
    private readonly values: RecordingValues,
    private readonly headers: HeaderRedactor,
    private readonly checker: ConformanceChecker,
    private readonly backlogBytes: number,
  ) {
    stream.on("error", (error) => (this.failed = error));
  }

  /**
   * Open FILE for writing (rejects when it cannot be) and write the HAR's head. A number for
   * `options` is the backlog alone (see RecorderOptions).
   */
  static async open(
    file: string,
    document: Json,
    options: number | RecorderOptions = {},
  ): Promise<HarRecorder> {
    const o: RecorderOptions = typeof options === "number" ? { backlogBytes: options } : options;
    const checker =
      o.checker ?? (await openConformanceChecker({ spec: document, basePaths: o.basePaths ?? [] }));
    const stream = await new Promise<WriteStream>((resolve, reject) => {
      const opened = createWriteStream(file);
      opened.once("error", reject);
      opened.once("open", () => {
        opened.off("error", reject);
        resolve(opened);
      });
    });
    const words = new Vocabulary(document);
    const values = new RecordingValues(document, words, new StandIns(o.key), o.basePaths);
    const recorder = new HarRecorder(
      stream,
      values,
      new HeaderRedactor(document, words, values),
      checker,
      o.backlogBytes ?? RECORDING_BACKLOG_BYTES,
    );
    stream.write(
      `{"log":{"version":"1.2","creator":{"name":"idv-conformance","version":"1"},"comment":${JSON.stringify(RECORDING_COMMENT)},"entries":[\n`,
    );
    return recorder;
  }

  /** Append one exchange with stand-ins for its values; withheld where they are not judged as it was. */
  add(exchange: HarExchange): void {
    const entry: Record<string, unknown> = this.entry(exchange);
    // Serialized once: read back from these very bytes, and written as they are unless withheld.
    let text = JSON.stringify(entry);
    const withheld = exchange.verdict ? this.verify(text, exchange, exchange.verdict) : undefined;
    if (withheld) {
      entry[WITHHELD_MEMBER] = withheldMember(withheld);
      text = JSON.stringify(entry);
    }
    this.stream.write(`${this.first ? "" : ",\n"}${text}`);
    this.first = false;
  }

  /** The entry as written, before any withholding. */
  private entry(exchange: HarExchange) {
    const { pathname } = exchange.target;
    const basePath = exchange.basePath ?? "";
    // The service's base path is the operator's, as they gave it: `check --base-path` strips it.
    const kept = basePath !== "" && pathname.startsWith(`${basePath}/`) ? basePath : "";
    const path = `${kept}${this.values.path(pathname.slice(kept.length))}`;
    const queryString = this.values.query(exchange.target.query);
    const search =
      queryString.length > 0 ? `?${new URLSearchParams(queryString.map((q) => [q.name, q.value]))}` : "";
    const requestContent = harContent(
      exchange.request.headers,
      exchange.request.body,
      exchange.request.size,
      this.values,
    );
    return {
      startedDateTime: exchange.startedAt.toISOString(),
      time: exchange.durationMs,
      request: {
        method: safeMethod(exchange.method),
        url: `${exchange.target.origin}${path}${search}`,
        httpVersion: "HTTP/1.1",
        cookies: [],
        headers: this.headers.redact(exchange.request.headers),
        queryString,
        headersSize: -1,
        bodySize: exchange.request.size,
        ...(exchange.request.size > 0
          ? {
              postData: {
                mimeType: requestContent.mimeType,
                // A form's parts are its params; HAR then has no text.
                ...(requestContent.params
                  ? { params: requestContent.params }
                  : { text: requestContent.text ?? "" }),
                ...(requestContent.encoding ? { encoding: requestContent.encoding } : {}),
                ...(requestContent.comment ? { comment: requestContent.comment } : {}),
              },
            }
          : {}),
      },
      response: {
        status: exchange.status,
        statusText: "",
        httpVersion: "HTTP/1.1",
        cookies: [],
        headers: this.headers.redact(exchange.response.headers),
        content: harContent(
          exchange.response.headers,
          exchange.response.body,
          exchange.response.size,
          this.values,
        ),
        redirectURL: "",
        headersSize: -1,
        bodySize: exchange.response.size,
      },
      cache: {},
      timings: { send: 0, wait: exchange.durationMs, receive: 0 },
    };
  }

  /** Read the entry back as `check` will and judge it; what must be withheld for the verdicts to agree. */
  private verify(written: string, exchange: HarExchange, live: EntryResult): Withheld | undefined {
    let recorded: EntryResult;
    try {
      const back = exchangeFromHar(JSON.parse(written), live.index);
      const base = exchange.basePath ?? "";
      if (base !== "" && back.request.path.startsWith(`${base}/`))
        back.request.path = back.request.path.slice(base.length);
      recorded = this.checker.checkExchange(back);
    } catch {
      // Not readable as written, or not checkable: nothing of the stand-ins stands for the values.
      return wholeEntry(live);
    }
    return withheldFor(live, recorded);
  }

  /**
   * Settles at once while the entries waiting for the disk are under the backlog, otherwise when
   * they have been written (or the file failed): traffic faster than the disk waits rather than
   * piling up in memory.
   */
  ready(): Promise<void> {
    if (this.stream.writableLength < this.backlogBytes || this.failed || this.stream.destroyed)
      return Promise.resolve();
    this.draining ??= new Promise<void>((resolve) => {
      const done = () => {
        this.stream.off("drain", done).off("error", done).off("close", done);
        this.draining = undefined;
        resolve();
      };
      this.stream.on("drain", done).on("error", done).on("close", done);
    });
    return this.draining;
  }

  /** Write the HAR's tail and close the file; rejects when any write failed. */
  close(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.stream.end("\n]}}\n", () => (this.failed ? reject(this.failed) : resolve()));
    });
  }
}
