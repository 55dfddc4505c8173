// A recording checks exactly as it ran. Before, the proxy's recording replaced every string with
// "[redacted]": a date of birth lost its pattern, a timestamp its format, a phone its digits, and
// `check` on the file failed exchanges that had conformed live (3 passed, 4 failed, where 5 of 7 had
// conformed). Now each value has a stand-in of its shape, and where none is judged as the value was,
// the entry withholds it with the live findings: the verdicts agree entry by entry and finding by
// finding, and no value of the traffic is in the file.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { buildIndependentCorpus } from "../../bench/corpus-independent.js";
import { openConformanceChecker } from "../../conformance/run/open-checker.js";
import { loadOpenApi } from "../support/contract.js";
import { CANARIES } from "../support/hostile.js";
import {
  canaries,
  checkRecording,
  jsonOf,
  jsonStrings,
  type Replayed,
  replayThroughProxy,
  survivors,
  liveVerdicts,
  verdict,
} from "./support/recording.js";
import type { Json } from "../../src/contract/json.js";

const doc = loadOpenApi();
const contractText = JSON.stringify(doc);
const checker = await openConformanceChecker({ spec: doc });
const dir = mkdtempSync(join(tmpdir(), "idv-recording-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A corpus line (bench/corpus-independent.ts) as an exchange to replay; undefined without an answer. */
function replayed(line: string): Replayed | undefined {
  const x = JSON.parse(line);
  if (x.response === undefined) return undefined;
  const url = new URL(x.request.url);
  const pairs = (list: { name: string; value: string }[]): [string, string][] =>
    list.map((h) => [h.name, h.value]);
  const bytes = (body: string | undefined, encoding: string | undefined) =>
    body === undefined ? undefined : Buffer.from(body, encoding === "base64" ? "base64" : "utf8");
  return {
    method: x.request.method,
    target: `${url.pathname}${url.search}`,
    requestHeaders: pairs(x.request.headers),
    requestBody: bytes(x.request.body, x.request.bodyEncoding),
    status: x.response.status,
    responseHeaders: pairs(x.response.headers),
    responseBody: bytes(x.response.body, x.response.bodyEncoding),
  };
}

/** Valid exchanges made from the schemas and the examples, and each kind of broken one the suite knows. */
const labelled = buildIndependentCorpus(doc, 160, 30).entries.flatMap((e) => {
  const x = replayed(e.line);
  return x ? [{ x, mutation: e.mutation }] : [];
});
const corpus = labelled.map((e) => e.x);

/** The recording's entries, as written. */
const entriesOf = (file: string): Json[] => JSON.parse(readFileSync(file, "utf8")).log.entries;

/** The exchange with one string of its JSON answer (the `at`-th) replaced by `value`. */
function implant(x: Replayed, at: number, value: string): Replayed {
  const json: Json = jsonOf(x.responseBody);
  if (json === null || typeof json !== "object") return x;
  const holders: [Json, string | number][] = [];
  const walk = (node: Json) => {
    if (node === null || typeof node !== "object") return;
    for (const [k, v] of Object.entries<Json>(node)) {
      if (typeof v === "string") holders.push([node, Array.isArray(node) ? Number(k) : k]);
      else walk(v);
    }
  };
  walk(json);
  const holder = holders[at % Math.max(holders.length, 1)];
  if (!holder) return x;
  holder[0][holder[1]] = value;
  return { ...x, responseBody: Buffer.from(JSON.stringify(json)) };
}

/** The values of an exchange no recording may keep. */
function valuesOf(x: Replayed): string[] {
  const url = new URL(x.target, "http://x");
  return [
    ...jsonStrings(jsonOf(x.requestBody)),
    ...jsonStrings(jsonOf(x.responseBody)),
    ...url.pathname.split("/").map((s) => decodeURIComponent(s)),
    ...[...url.searchParams].flat(),
    ...x.requestHeaders.filter(([n]) => /^svc-(api-key|secret|signature)$/i.test(n)).map(([, v]) => v),
  ];
}

let files = 0;

describe("a recording of the proxy", () => {
  it("is judged by check as the traffic was live, and keeps no value of it", async () => {
    const value = fc.oneof(fc.constantFrom(...CANARIES), fc.string({ minLength: 8, maxLength: 24 }));
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            pick: fc.nat(corpus.length - 1),
            implant: fc.option(fc.tuple(fc.nat(50), value), { nil: undefined }),
          }),
          { minLength: 1, maxLength: 6 },
        ),
        async (picks) => {
          const exchanges = picks.map(({ pick, implant: i }) => {
            const x = corpus[pick] as Replayed;
            return i ? implant(x, i[0], i[1]) : x;
          });
          const file = join(dir, `proxy-${files++}.har`);
          const live = await replayThroughProxy(exchanges, file, doc, checker);
          const recorded = await checkRecording(checker, file);
          // Every exchange was checked live and recorded: the comparison below is never of nothing.
          expect(live.filter((v) => v !== undefined)).toHaveLength(exchanges.length);
          expect(recorded.map(verdict)).toEqual(liveVerdicts(live, recorded));
          const secret = canaries(exchanges.flatMap(valuesOf), contractText);
          expect(survivors(file, secret)).toEqual([]);
          // A valid exchange's values all have stand-ins judged as they were: nothing is withheld.
          const entries = entriesOf(file);
          picks.forEach(({ pick, implant: i }, n) => {
            if (!i && labelled[pick]?.mutation === undefined) expect(entries[n]._idvWithheld).toBeUndefined();
          });
        },
      ),
      { numRuns: 25 },
    );
  });

  it("keeps each fault the suite knows with a stand-in that has it, withholding only what none can keep", async () => {
    const file = join(dir, "corpus.har");
    const live = await replayThroughProxy(corpus, file, doc, checker);
    const recorded = await checkRecording(checker, file);
    expect(recorded.map(verdict)).toEqual(liveVerdicts(live, recorded));
    const kinds = new Set(labelled.map((e) => e.mutation ?? "valid"));
    // The corpus holds valid exchanges and many kinds of broken ones, so the comparison covers them.
    expect(kinds.size).toBeGreaterThan(15);
    expect(live.filter((v) => v?.ok === false).length).toBeGreaterThan(20);
    const withheld = entriesOf(file).flatMap((entry, n) =>
      entry._idvWithheld ? [labelled[n]?.mutation ?? "valid"] : [],
    );
    // An integer of more than twelve digits in a path gets a stand-in, which may fall below 2^53.
    expect(withheld.filter((kind) => kind !== "integer id beyond 2^53")).toEqual([]);
    expect(survivors(file, canaries(corpus.flatMap(valuesOf), contractText))).toEqual([]);
  });
});
