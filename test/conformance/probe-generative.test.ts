// The generative phase on a tiny contract (fixtures/generative/): a server with no defect gets no
// finding; each defect, reached by some inputs only, is found, shrunk by fast-check to a minimal
// request, reported once with the seed and a reproducer, the same for the same seed; the request
// budget holds.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import type { Json } from "../../src/contract/json.js";
import type { ActiveResult } from "../../conformance/probe/active-report.js";
import { checkProperty } from "../../conformance/probe/generative-property.js";
import { runProbe } from "../../conformance/probe/run-probe.js";
import type { ProbeSession } from "../../conformance/probe/session.js";
import {
  DEFECTS,
  type Defect,
  thingsServer,
  type ThingsServer,
} from "./fixtures/generative/things-server.js";

const CONTRACT: Json = JSON.parse(
  readFileSync(new URL("./fixtures/generative/contract.json", import.meta.url), "utf8"),
);

let server: ThingsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function generate(defect: Defect | undefined, seed: number, maxRequests = 600, concurrency = 2) {
  server = await thingsServer(defect);
  const run = await runProbe({
    baseUrl: new URL(server.url),
    phases: ["generative"],
    document: CONTRACT,
    seed,
    maxRequests,
    concurrency,
    readOnly: false,
    timeoutMs: 10_000,
    generativeMs: 60_000,
  });
  return { ...run, sent: server.requests() };
}

const failed = (results: ActiveResult[]) => results.filter((r) => !r.ok);

describe("the generative phase", () => {
  it.each([1, 2, 3])("finds nothing wrong with a server that keeps the contract (seed %i)", async (seed) => {
    const { results } = await generate(undefined, seed);
    expect(failed(results).map((r) => `${r.case}: ${r.violations.map((v) => v.message)}`)).toEqual([]);
    expect(results.length).toBeGreaterThan(20);
  });

  it.each(Object.keys(DEFECTS) as Defect[])(
    "finds %s, reported once, with its seed and a reproducer",
    async (defect) => {
      const { results } = await generate(defect, 11);
      const found = failed(results);
      expect(found, DEFECTS[defect]).toHaveLength(1);
      expect(found[0]!.seed).toBe(11);
      expect(found[0]!.curl).toMatch(/^curl .*127\.0\.0\.1/m);
    },
  );

  it("shrinks a boundary's failure to the boundary itself: a name of exactly 12 letters, alone", async () => {
    const { results } = await generate("boundary", 5);
    const [found] = failed(results);
    // The reproducer's own bash string, read back by bash: the bytes it would send.
    const assignment = /^BODY=\$'.*'$/m.exec(found!.curl!)![0];
    const bytes = execFileSync("bash", ["-c", `${assignment}; printf %s "$BODY"`]);
    const sent = JSON.parse(bytes.toString("utf8")) as { name: string; size?: number };
    expect([...sent.name]).toHaveLength(12);
    expect(sent.size).toBeUndefined();
    expect(found!.case).toMatch(/shrunk in \d+ steps?/);
  });

  it("walks the links: a state refusal the contract states is expected, and its absence found", async () => {
    const clean = await generate(undefined, 9);
    expect(clean.results.some((r) => r.case.includes("archiveThing (again)") && r.ok)).toBe(true);
    const { results } = await generate("state", 9);
    expect(failed(results)[0]!.violations.map((v) => v.check)).toContain("link_state");
  });

  it("makes the same requests and the same report for the same seed", async () => {
    // Two servers, two ports: the rest of each reproducer is the same.
    const shown = (results: ActiveResult[]) =>
      failed(results).map((r) => [r.case, r.curl?.replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:PORT")]);
    // One property at a time: the server numbers records in the order they come.
    const first = await generate("chain", 21, 600, 1);
    await server!.close();
    const second = await generate("chain", 21, 600, 1);
    expect(shown(second.results)).toEqual(shown(first.results));
    expect(shown(first.results)).toHaveLength(1);
  });

  it.each([5, 12, 40])("sends no more than --max-requests %i, shrinking included", async (budget) => {
    const { sent } = await generate("boundary", 3, budget);
    expect(sent).toBeLessThanOrEqual(budget);
    expect(sent).toBeGreaterThan(0);
  });

  it("says when a property stopped on an error of the probe's own, rather than dropping it", async () => {
    const notes: string[] = [];
    const added: ActiveResult[] = [];
    const session = {
      notes,
      options: { seed: 1 },
      add: (r: ActiveResult) => added.push(r),
    } as unknown as ProbeSession;
    const property = {
      key: "k",
      arbitrary: fc.nat(),
      attempt: () => Promise.reject(new RangeError("the probe's own")),
      numRuns: 5,
      timeLimitMs: 10_000,
    };
    await checkProperty(session, property, new Set());
    expect(notes).toEqual(["generative: the property k stopped on an error of the probe's own (RangeError)"]);
    expect(added).toEqual([]);
  });
});
