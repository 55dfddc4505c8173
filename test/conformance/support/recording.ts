// Recording and checking again: traffic replayed through the proxy (or sent by the probe) with a
// recorder that keeps what each exchange's live verdict was, then the recording checked as `check`
// checks it, and the two verdicts compared entry by entry.
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import type { EntryResult, Finding } from "../../../conformance/findings/findings.js";
import { covers, recordedMessage, WITHHELD_CHECK } from "../../../conformance/findings/withheld.js";
import { HarRecorder, type HarExchange } from "../../../conformance/proxy/har.js";
import { startProxy } from "../../../conformance/proxy/proxy.js";
import type { ConformanceChecker } from "../../../conformance/run/open-checker.js";
import type { Json } from "../../../src/contract/json.js";

/** One exchange to replay: the request the client sends and the answer the service gives. */
export interface Replayed {
  method: string;
  /** Path and query. */
  target: string;
  requestHeaders: [string, string][];
  requestBody?: Buffer;
  status: number;
  responseHeaders: [string, string][];
  responseBody?: Buffer;
}

/** Framing the test's own peers set: never copied from a replayed exchange. */
const FRAMING = new Set(["content-length", "transfer-encoding", "host", "connection"]);
const unframed = (headers: [string, string][]) => headers.filter(([n]) => !FRAMING.has(n.toLowerCase()));

/** A recorder that also keeps each exchange's live verdict (undefined when it went unchecked), in order. */
export async function spiedRecorder(file: string, document: Json, checker: ConformanceChecker) {
  const recorder = await HarRecorder.open(file, document, { checker });
  const live: (EntryResult | undefined)[] = [];
  const add = recorder.add.bind(recorder);
  recorder.add = (exchange: HarExchange) => {
    live.push(exchange.verdict);
    add(exchange);
  };
  return { recorder, live };
}

/** Replay exchanges one by one through the proxy, recording to `file`; the live verdicts. */
export async function replayThroughProxy(
  exchanges: Replayed[],
  file: string,
  document: Json,
  checker: ConformanceChecker,
): Promise<(EntryResult | undefined)[]> {
  let answer: Replayed | undefined;
  const upstream = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const a = answer as Replayed;
      const body = a.responseBody ?? Buffer.alloc(0);
      res.writeHead(a.status, [...unframed(a.responseHeaders).flat(), "content-length", String(body.length)]);
      res.end(body);
    });
  });
  upstream.listen(0, "127.0.0.1");
  await once(upstream, "listening");
  const { recorder, live } = await spiedRecorder(file, document, checker);
  const proxy = await startProxy({
    upstream: new URL(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`),
    checker,
    port: 0,
    onExchange: (x) => recorder.add(x),
    ready: () => recorder.ready(),
  });
  try {
    for (const x of exchanges) {
      answer = x;
      const body = x.requestBody ?? Buffer.alloc(0);
      const req = httpRequest(`${proxy.url}${x.target}`, {
        method: x.method,
        // Raw pairs keep the exchange's names, order and repeats; Node then adds no Host of its own.
        headers: [
          "host",
          new URL(proxy.url).host,
          ...unframed(x.requestHeaders).flat(),
          "content-length",
          String(body.length),
        ],
      });
      req.end(body);
      const [res] = (await once(req, "response")) as [import("node:http").IncomingMessage];
      res.resume();
      await once(res, "end");
    }
  } finally {
    await proxy.close();
    await recorder.close();
    upstream.close();
  }
  return live;
}

/** Every verdict `check` gives on a recorded file. */
export async function checkRecording(checker: ConformanceChecker, file: string): Promise<EntryResult[]> {
  const out: EntryResult[] = [];
  for await (const result of checker.checkFile(file)) out.push(result);
  return out;
}

const line = (f: Finding) => `${f.in} ${f.pointer} [${f.check}] ${f.message}`;

/** A verdict as the comparison sees it: the route, and every finding (a withheld location's notice aside). */
export function verdict(r: EntryResult | undefined) {
  if (!r) return undefined;
  return {
    ok: r.ok,
    method: r.method,
    path: r.path,
    operationId: r.operationId,
    violations: r.violations.map(line).sort(),
    warnings: r.warnings
      .filter((w) => w.check !== WITHHELD_CHECK)
      .map(line)
      .sort(),
  };
}

/**
 * The live verdicts as their recording can tell them: at a location the recording withheld, `check`
 * gives each live finding's check, never its words (the message is made again from the check's rule).
 */
export function liveVerdicts(live: (EntryResult | undefined)[], recorded: (EntryResult | undefined)[]) {
  return live.map((r, i) => {
    const withheld = recorded[i]?.withheld;
    if (!r || !withheld) return verdict(r);
    const told = (kind: "violation" | "warning") => (f: Finding) =>
      withheld.some((l) => covers(l, f)) ? { ...f, message: recordedMessage(f.check, kind) } : f;
    return verdict({
      ...r,
      violations: r.violations.map(told("violation")),
      warnings: r.warnings.map(told("warning")),
    });
  });
}

/** The strings of a JSON value, however deep. */
export function jsonStrings(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) jsonStrings(v, out);
  else if (value && typeof value === "object")
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      jsonStrings(v, out);
    }
  return out;
}

/** The JSON value of a body, or undefined. */
export function jsonOf(body: Buffer | undefined): unknown {
  if (!body) return undefined;
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
}

/**
 * The values of traffic that would identify someone if a recording kept them: strings of eight
 * characters or more, not digits alone (numbers are kept), that the contract itself does not write.
 */
export function canaries(values: string[], contractText: string): string[] {
  return values.filter(
    (v) => v.length >= 8 && /[A-Za-z]/.test(v) && !contractText.includes(JSON.stringify(v).slice(1, -1)),
  );
}

/** The canaries a recording's text still holds, raw or as JSON escapes them. */
export function survivors(file: string, values: string[]): string[] {
  const text = readFileSync(file, "utf8");
  return values.filter((v) => text.includes(v) || text.includes(JSON.stringify(v).slice(1, -1)));
}
