// The recording's headers: names and values are the sender's text, so only what the contract and HTTP
// describe is kept. Before, header names were recorded as sent, and the values of Accept, Prefer,
// Cache-Control, Accept-Encoding and Svc-Date whatever they held: a canary in any of them landed in
// the HAR, which the proxy's guide says holds no credential or personal data.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { HarRecorder, type HarExchange } from "../../conformance/proxy/har.js";
import { loadOpenApi } from "../support/contract.js";
import { CANARIES, canary, containsCanary } from "../support/hostile.js";

const doc = loadOpenApi();
const dir = mkdtempSync(join(tmpdir(), "idv-proxy-har-headers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;

/** Record one exchange with these request and response headers; the HAR's text. */
async function recorded(request: [string, string][], response: [string, string][] = []): Promise<string> {
  const file = join(dir, `${files++}.har`);
  const recorder = await HarRecorder.open(file, doc);
  const exchange: HarExchange = {
    startedAt: new Date(0),
    durationMs: 1,
    method: "GET",
    target: { origin: "http://127.0.0.1:1", pathname: "/api/v4/outsource_cases/1", query: "" },
    request: { headers: request, size: 0 },
    status: 200,
    response: { headers: response, size: 0 },
  };
  recorder.add(exchange);
  await recorder.close();
  return readFileSync(file, "utf8");
}

const headersOf = (text: string, side: "request" | "response" = "request") =>
  JSON.parse(text).log.entries[0][side].headers as { name: string; value: string }[];

/** Names a sender may use: HTTP's, the contract's, in any case. */
const KNOWN_NAMES = [
  "Accept",
  "accept-encoding",
  "Cache-Control",
  "PREFER",
  "Svc-Date",
  "svc-api-key",
  "Svc-Signature",
  "Content-Type",
  "Content-Length",
  "Content-Encoding",
  "Allow",
  "Retry-After",
  "Vary",
  "Date",
  "Content-Disposition",
  "X-Workflow-Event-Type",
  "X-Workflow-Webhook-Id",
  "Expect",
  "Pragma",
  "Transfer-Encoding",
  "User-Agent",
];

/** A value shaped like each field's grammar, with a canary where a value of the sender's would go. */
const valueWithCanary = (c: string): string[] => [
  c,
  `application/json;q=0.5, ${c}`,
  `application/${c}`,
  `${c}/json`,
  `*/*;${c}=1`,
  `gzip, ${c};q=1`,
  `max-age=${c}, no-cache`,
  `${c}=60`,
  `code=200, example=${c}`,
  `example="${c}"`,
  `dynamic=${c}`,
  `2026-11-22T09:30:00.000Z${c}`,
  `${c}2026-11-22T09:30:00.000Z`,
  `application/json; charset=${c}`,
  `multipart/form-data; boundary=${c}`,
  `attachment; filename="${c}.pdf"`,
  `${c}; filename=a`,
  `GET, ${c}`,
  `Accept, ${c}`,
  `100-continue${c}`,
];

describe("the recording's headers", () => {
  it("keep no canary in any header name or value", async () => {
    const header = fc.tuple(
      fc.oneof(
        fc.constantFrom(...KNOWN_NAMES),
        canary(),
        fc.tuple(fc.constantFrom(...KNOWN_NAMES), canary()).map(([n, c]) => `${n}${c}`),
        fc.tuple(fc.constantFrom(...KNOWN_NAMES), canary()).map(([n, c]) => `${c}-${n}`),
      ),
      canary().chain((c) => fc.constantFrom(...valueWithCanary(c))),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(header, { minLength: 1, maxLength: 8 }),
        fc.array(header, { maxLength: 8 }),
        async (request, response) => {
          const text = await recorded(request, response);
          expect(CANARIES.filter((c) => text.includes(c))).toEqual([]);
          expect(headersOf(text)).toHaveLength(request.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("keep the names and values the contract and HTTP describe, as they describe them", async () => {
    const text = await recorded(
      [
        ["accept", "application/json, */*;q=0.8, application/pdf"],
        ["ACCEPT-ENCODING", "gzip, br;q=0.5"],
        ["cache-control", "no-cache, max-age=0"],
        ["prefer", "code=404, example=CreatePepCheckResponse, dynamic=true"],
        ["svc-date", "2026-11-22T09:30:00.000Z"],
        ["svc-api-key", "key-123"],
        ["content-type", "application/json; charset=UTF-8"],
        ["content-length", "42"],
        ["x-my-header", "x"],
        ["x-other", "y"],
      ],
      [
        ["allow", "GET, post"],
        ["retry-after", "120"],
        ["content-disposition", 'attachment; filename="report.pdf"'],
        ["date", "Wed, 25 Nov 2026 12:00:00 GMT"],
      ],
    );
    expect(headersOf(text)).toEqual([
      { name: "Accept", value: "application/json, */*;q=0.8, application/pdf" },
      { name: "Accept-Encoding", value: "gzip, br;q=0.5" },
      { name: "Cache-Control", value: "no-cache, max-age=0" },
      { name: "Prefer", value: "code=404, example=CreatePepCheckResponse, dynamic=true" },
      { name: "Svc-Date", value: "2026-11-22T09:30:00.000Z" },
      { name: "Svc-API-Key", value: "[redacted]" },
      { name: "Content-Type", value: "application/json; charset=utf-8" },
      { name: "Content-Length", value: "42" },
      { name: "[redacted]1", value: "[redacted]" },
      { name: "[redacted]2", value: "[redacted]" },
    ]);
    expect(headersOf(text, "response")).toEqual([
      { name: "Allow", value: "GET, POST" },
      { name: "Retry-After", value: "120" },
      { name: "Content-Disposition", value: "attachment; filename=[redacted]" },
      { name: "Date", value: "Wed, 25 Nov 2026 12:00:00 GMT" },
    ]);
  });

  it("redact each element of a list that is not described, and keep the rest", async () => {
    const text = await recorded([
      ["Accept", `application/json, ${CANARIES[0]}`],
      ["Prefer", `code=404, example=${CANARIES[1]}`],
      ["Svc-Date", `${CANARIES[4]}`],
    ]);
    expect(containsCanary(text)).toBe(false);
    expect(headersOf(text)).toEqual([
      { name: "Accept", value: "application/json, [redacted]" },
      { name: "Prefer", value: "code=404, [redacted]" },
      { name: "Svc-Date", value: "[redacted]" },
    ]);
  });
});
