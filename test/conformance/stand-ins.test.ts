// Stand-ins keep a value's shape and nothing else: the same within a recording (links hold), another
// in the next recording (nothing links or reverses across files), a valid date for a valid one.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { StandIns } from "../../conformance/findings/stand-ins.js";
import { HarRecorder, type HarExchange } from "../../conformance/proxy/har.js";
import { loadOpenApi } from "../support/contract.js";

const doc = loadOpenApi();
const dir = mkdtempSync(join(tmpdir(), "idv-stand-ins-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Each character's class as the stand-ins keep it. */
const shape = (value: string): string =>
  [...value]
    .map((c) =>
      /[0-9]/.test(c)
        ? "9"
        : /[a-f]/.test(c)
          ? "h"
          : /[g-z]/.test(c)
            ? "a"
            : /[A-F]/.test(c)
              ? "H"
              : /[G-Z]/.test(c)
                ? "A"
                : c.charCodeAt(0) < 0x80
                  ? c
                  : "*",
    )
    .join("");

describe("stand-ins", () => {
  it("keep each character's class and the value's length, and are never a value with a letter or a digit but 0", () => {
    const standIns = new StandIns();
    fc.assert(
      fc.property(
        fc
          .stringMatching(/^[A-Za-z0-9 .@_+-]{6,40}$/)
          .filter((v) => /[A-Za-z1-9]/.test(v) && !/^\d{4}-\d{2}-\d{2}/.test(v)),
        (value) => {
          const out = standIns.text(value);
          expect(out).not.toBe(value);
          // A digit run's first digit stays zero or not (`^[1-9]`), so compare the rest by class.
          expect(shape(out)).toBe(shape(value));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("give the same stand-in for the same value, and another under another key", () => {
    const a = new StandIns();
    const b = new StandIns();
    const value = "Jane Canary-Doe 1985";
    expect(a.text(value)).toBe(a.text(value));
    expect(b.text(value)).not.toBe(a.text(value));
  });

  it("give a valid date, timestamp or DD/MM/YYYY date for a valid one, and keep the zone", () => {
    const standIns = new StandIns();
    fc.assert(
      fc.property(
        fc.date({ min: new Date("1900-01-01"), max: new Date("2099-12-31"), noInvalidDate: true }),
        (d) => {
          const iso = d.toISOString();
          const stamp = standIns.text(iso);
          expect(stamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
          expect(new Date(stamp).toISOString()).toBe(stamp);
          const day = iso.slice(0, 10);
          const date = standIns.text(day);
          expect(new Date(`${date}T00:00:00Z`).toISOString().slice(0, 10)).toBe(date);
          const [y, m, dd] = day.split("-");
          expect(standIns.text(`${dd}/${m}/${y}`)).toMatch(/^(0[1-9]|1[0-2])\/(0[1-9]|1[0-2])\/(19|20)\d\d$/);
          expect(standIns.text(`${iso.slice(0, 19)}+05:30`)).toMatch(/\+05:30$/);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("keep a URL's scheme, and letters of other scripts as letters of the same case", () => {
    const standIns = new StandIns();
    expect(standIns.text("https://jane.example.com/done")).toMatch(
      /^https:\/\/[a-z]{4}\.[a-z]{7}\.[a-z]{3}\/[a-z]{4}$/,
    );
    // Free text with a colon is not a URL: the word before it is replaced too.
    expect(standIns.text("Smith: call back")).toMatch(/^[A-Z][a-z]{4}: [a-z]{4} [a-z]{4}$/);
    expect(standIns.text("Smith: call back").startsWith("Smith")).toBe(false);
    const out = standIns.text("Ølga Żółć");
    expect(out).not.toBe("Ølga Żółć");
    expect(out).toMatch(/^\p{Lu}\p{Ll}{3} \p{Lu}\p{Ll}{3}$/u);
  });
});

describe("a recording's links", () => {
  it("survive: an id the service gave is the same stand-in in a later path", async () => {
    const file = join(dir, "links.har");
    const recorder = await HarRecorder.open(file, doc);
    const transaction = "0b7c6e1a-3f55-4d0e-9a1b-6c2d8e4f7a90";
    const base: Omit<HarExchange, "method" | "target" | "response" | "status"> = {
      startedAt: new Date(0),
      durationMs: 1,
      request: { headers: [], size: 0 },
    };
    const body = Buffer.from(JSON.stringify({ transaction_id: transaction }));
    recorder.add({
      ...base,
      method: "POST",
      target: { origin: "http://127.0.0.1:1", pathname: "/api/v2/manual_eidv", query: "" },
      status: 200,
      response: { headers: [["content-type", "application/json"]], body, size: body.length },
    });
    recorder.add({
      ...base,
      method: "GET",
      target: {
        origin: "http://127.0.0.1:1",
        pathname: `/api/v2/biometric/pdf/${transaction}.pdf`,
        query: "",
      },
      status: 404,
      response: { headers: [], size: 0 },
    });
    await recorder.close();
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain(transaction);
    const [first, second] = JSON.parse(text).log.entries;
    const standIn = JSON.parse(first.response.content.text).transaction_id;
    expect(standIn).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(second.request.url).toBe(`http://127.0.0.1:1/api/v2/biometric/pdf/${standIn}.pdf`);
  });

  it("keep the base paths the traffic carries before the contract's paths, as they are", async () => {
    const file = join(dir, "base.har");
    const recorder = await HarRecorder.open(file, doc, { basePaths: ["/idv"] });
    recorder.add({
      startedAt: new Date(0),
      durationMs: 1,
      method: "GET",
      target: {
        origin: "http://127.0.0.1:1",
        pathname: "/idv/api/v4/outsource_cases/case-Jane-Doe",
        query: "",
      },
      request: { headers: [], size: 0 },
      status: 404,
      response: { headers: [], size: 0 },
    });
    await recorder.close();
    const url = JSON.parse(readFileSync(file, "utf8")).log.entries[0].request.url;
    expect(url).toMatch(
      /^http:\/\/127\.0\.0\.1:1\/idv\/api\/v4\/outsource_cases\/[a-z]{4}-[A-Z][a-z]{3}-[A-Z][a-z]{2}$/,
    );
    expect(url).not.toContain("Jane");
  });
});
