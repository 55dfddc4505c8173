// The probe's `--record` checks as the probe judged it. Before, `probe --phases examples --record`
// passed 33 of 33 live while `check` on the recording failed 20: every string had become
// "[redacted]". Here the probe runs against a deployment that answers from the schemas, valid and
// broken in each way the suite knows, with canaries in its answers; `check` on the recording gives
// the verdict the probe's checks gave, entry by entry, and no canary or credential is in the file.
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildIndependentCorpus } from "../../bench/corpus-independent.js";
import { RouteTable } from "../../src/contract/router.js";
import { runProbe } from "../../conformance/probe/run-probe.js";
import { openConformanceChecker } from "../../conformance/run/open-checker.js";
import { HTTP_METHODS, loadOpenApi } from "../support/contract.js";
import { CANARIES } from "../support/hostile.js";
import {
  canaries,
  checkRecording,
  jsonOf,
  jsonStrings,
  spiedRecorder,
  survivors,
  liveVerdicts,
  verdict,
} from "./support/recording.js";
import type { Json } from "../../src/contract/json.js";

const doc = loadOpenApi();
const contractText = JSON.stringify(doc);
const CREDENTIALS = { apiKey: "CANARY-KEY-7c2d9e", secret: CANARIES[0] };
const dir = mkdtempSync(join(tmpdir(), "idv-recording-probe-"));

interface Answer {
  status: number;
  headers: [string, string][];
  body?: Buffer;
}

/** Answers made from the schemas and examples, valid and broken, by operation. */
const answers = new Map<string, Answer[]>();
for (const entry of buildIndependentCorpus(doc, 240, 31).entries) {
  const x = JSON.parse(entry.line);
  if (x.response === undefined) continue;
  const headers: [string, string][] = x.response.headers
    .map((h: Json) => [h.name, h.value] as [string, string])
    .filter(([n]: [string, string]) => !/^(content-length|transfer-encoding|connection)$/i.test(n));
  const body =
    x.response.body === undefined
      ? undefined
      : Buffer.from(x.response.body, x.response.bodyEncoding === "base64" ? "base64" : "utf8");
  const list = answers.get(entry.operationId) ?? [];
  list.push({ status: x.response.status, headers, body });
  answers.set(entry.operationId, list);
}

const routes = new RouteTable<string>(
  Object.entries<Json>(doc.paths).flatMap(([template, item]) =>
    HTTP_METHODS.filter((m) => item[m]?.operationId).map((method) => ({
      template,
      method,
      target: item[method].operationId as string,
    })),
  ),
);

/** The deployment's choices for one run: which answer each request gets, and a canary in some. */
let choose: (operationId: string, n: number) => Answer = () => ({ status: 500, headers: [] });
let deployment: Server;
let base = "";
const served: Answer[] = [];

beforeAll(async () => {
  let n = 0;
  deployment = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const path = (req.url ?? "/").split("?")[0] as string;
      const route = routes.match(req.method ?? "GET", path.replace(/^\/idv(?=\/)/, ""));
      const answer =
        route.kind === "found" ? choose(route.target, n++) : { status: 404, headers: [], body: undefined };
      served.push(answer);
      const body = answer.body ?? Buffer.alloc(0);
      res.writeHead(answer.status, [...answer.headers.flat(), "content-length", String(body.length)]);
      res.end(body);
    });
  });
  deployment.listen(0, "127.0.0.1");
  await once(deployment, "listening");
  base = `http://127.0.0.1:${(deployment.address() as AddressInfo).port}`;
});
afterAll(() => {
  deployment?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** An answer with a value put in place of the strings of its JSON body whose position `at` picks. */
function withCanary(answer: Answer, value: string, at: number): Answer {
  const json: Json = jsonOf(answer.body);
  if (json === null || typeof json !== "object") return answer;
  let i = 0;
  const walk = (node: Json) => {
    for (const [k, v] of Object.entries<Json>(node)) {
      if (typeof v === "string" && i++ % 3 === at % 3) node[k] = value;
      else if (v !== null && typeof v === "object") walk(v);
    }
  };
  walk(json);
  return { ...answer, body: Buffer.from(JSON.stringify(json)) };
}

let files = 0;

describe("the probe's recording", () => {
  it("is judged by check as the probe judged it, and keeps no canary or credential", async () => {
    const operations = [...answers.keys()].sort();
    await fc.assert(
      fc.asyncProperty(
        fc.subarray(operations, { minLength: 1, maxLength: 3 }),
        fc.nat(1000),
        fc.constantFrom(...CANARIES),
        fc.boolean(),
        async (ops, pick, canary, prefixed) => {
          served.length = 0;
          choose = (operationId, n) => {
            const list = answers.get(operationId) as Answer[];
            const answer = list[(pick + n) % list.length] as Answer;
            return n % 2 === 0 ? withCanary(answer, canary, pick + n) : answer;
          };
          const basePaths = prefixed ? ["/idv"] : [];
          const checker = await openConformanceChecker({ spec: doc, basePaths });
          const file = join(dir, `probe-${files++}.har`);
          const { recorder, live } = await spiedRecorder(file, doc, checker);
          await runProbe({
            baseUrl: new URL(`${base}${prefixed ? "/idv" : ""}`),
            credentials: CREDENTIALS,
            phases: ["examples", "negative"],
            operations: new Set(ops),
            seed: pick,
            maxRequests: 40,
            concurrency: 1,
            readOnly: false,
            timeoutMs: 5000,
            document: doc,
            recorder,
          });
          await recorder.close();
          expect(live.length).toBeGreaterThan(0);
          expect(live.filter((v) => v === undefined)).toEqual([]);
          // `check --base-path /idv` when the deployment's base URL has that path.
          const recorded = await checkRecording(checker, file);
          expect(recorded.map(verdict)).toEqual(liveVerdicts(live, recorded));
          const values = served.flatMap((a) => jsonStrings(jsonOf(a.body)));
          expect(
            survivors(file, [...canaries(values, contractText), CREDENTIALS.apiKey, CREDENTIALS.secret]),
          ).toEqual([]);
          expect(readFileSync(file, "utf8")).not.toContain(canary);
        },
      ),
      { numRuns: 8 },
    );
  });
});
