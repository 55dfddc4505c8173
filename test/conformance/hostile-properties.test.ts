// Properties of the CLI on hostile recordings: whatever a HAR or NDJSON file holds, in any format,
// the run ends with 0/1 and a whole report for usable input, 2 and one line naming the file for
// unusable input, never repeats a canary, and leaves the built-in prototypes as they were.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { toNdjson } from "../../bench/corpus.js";
import {
  assertPrototypesUntouched,
  canary,
  containsCanary,
  deeplyNested,
  hostileJsonValue,
  hostileKey,
  INVALID_UTF8,
  oddNumber,
  oddString,
  prototypeSnapshot,
} from "../support/hostile.js";
import { hasStackTrace, runCli, tempDir } from "./support/cli.js";
import { examples } from "./support/exchanges.js";
import { runMain, toHar, toHarEntry } from "./support/in-process.js";

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Recordings are edited structurally.
type Raw = any;

/** What a mutation makes of a file: still checkable, certainly not, or either (the checks decide). */
type Usability = "usable" | "unusable" | "either";

interface Recording {
  kind: "har" | "ndjson";
  bytes: Buffer;
  usability: Usability;
}

/** The valid example exchanges as raw entries of a format, a few of them. */
function baseEntries(kind: "har" | "ndjson", picks: number[]): Raw[] {
  return picks.map((i) => {
    const x = structuredClone(examples[i % examples.length]!.exchange);
    return kind === "har" ? toHarEntry(x) : JSON.parse(toNdjson(x));
  });
}

/** The entry at `e` when it still has a request object to edit (an earlier edit may have replaced it). */
function editable(entries: Raw[], e: number): Raw | undefined {
  const entry = entries[e % entries.length];
  const ok =
    entry !== null &&
    typeof entry === "object" &&
    entry.request !== null &&
    typeof entry.request === "object";
  return ok ? entry : undefined;
}

const isObject = (v: Raw): boolean => v !== null && typeof v === "object";

/** Every object and array inside a value, with the value itself. */
function containers(value: Raw, out: Raw[] = []): Raw[] {
  if (value === null || typeof value !== "object") return out;
  out.push(value);
  for (const key of Object.keys(value)) containers(value[key], out);
  return out;
}

/** Edits of the parsed entries that keep the file JSON: each may or may not leave it checkable. */
const entryEdits: fc.Arbitrary<(entries: Raw[]) => Usability>[] = [
  // A prototype-named or canary member, with a hostile value, somewhere inside an entry.
  fc
    .tuple(fc.nat(), fc.nat(), hostileKey(), hostileJsonValue(3))
    .map(([e, at, key, value]) => (entries: Raw[]) => {
      const places = containers(entries[e % entries.length]);
      const place = places[at % places.length];
      if (Array.isArray(place)) place.push(value);
      else Object.defineProperty(place, key, { value, enumerable: true, writable: true, configurable: true });
      return "either";
    }),
  // A canary as a path segment, query, method, header name or value, media type or body member.
  fc
    .tuple(fc.nat(), canary(), fc.constantFrom("path", "query", "method", "header", "value", "type", "body"))
    .map(([e, secret, where]) => (entries: Raw[]) => {
      const entry = editable(entries, e);
      if (!entry) return "usable";
      const request = entry.request;
      const id = encodeURIComponent(secret);
      if (where === "path") request.url = String(request.url).replace(/\/([^/]*)$/, `/${id}`);
      if (where === "query") request.url = `${request.url}?${id}=${id}`;
      if (where === "method") request.method = secret;
      if (!isObject(request.headers)) request.headers = [];
      const headers = request.headers;
      const add = (name: string, value: string) =>
        Array.isArray(headers) ? headers.push({ name, value }) : (headers[name] = value);
      if (where === "header") add(secret, "x");
      if (where === "value") add("svc-api-key", secret);
      if (where === "type") add("content-type", `application/${secret}`);
      if (where === "body") {
        const text = JSON.stringify({ [secret]: secret, reference: secret });
        if (isObject(request.postData)) request.postData.text = text;
        else request.body = text;
      }
      return "usable";
    }),
  // A body nested deeper than any schema, or a huge string, or odd numbers as statuses.
  fc
    .tuple(
      fc.nat(),
      fc.integer({ min: 1_000, max: 50_000 }),
      fc.constantFrom("array", "object") as fc.Arbitrary<"array" | "object">,
    )
    .map(([e, depth, shape]) => (entries: Raw[]) => {
      const entry = editable(entries, e);
      if (!entry || !isObject(entry.response)) return "either";
      if (isObject(entry.response.content)) entry.response.content.text = deeplyNested(depth, shape);
      else entry.response.body = deeplyNested(depth, shape);
      return "either";
    }),
  fc.tuple(fc.nat(), oddString()).map(([e, text]) => (entries: Raw[]) => {
    const entry = editable(entries, e);
    if (!entry) return "either";
    if (isObject(entry.request.postData)) entry.request.postData.text = text;
    else entry.request.body = text;
    return "either";
  }),
  fc.tuple(fc.nat(), oddNumber()).map(([e, status]) => (entries: Raw[]) => {
    const entry = editable(entries, e);
    if (entry && isObject(entry.response)) entry.response.status = status;
    return "either";
  }),
  // An entry that is not an exchange at all.
  fc.tuple(fc.nat(), fc.constantFrom(null, 7, "x", [], {})).map(([e, value]) => (entries: Raw[]) => {
    entries[e % entries.length] = value;
    return "unusable";
  }),
];

/** Edits of the file's bytes. */
type ByteEdit = (bytes: Buffer) => { bytes: Buffer; usability?: Usability };
const byteEdits: fc.Arbitrary<ByteEdit>[] = [
  fc.constant((bytes: Buffer) => ({ bytes })),
  fc.constant((bytes: Buffer) => ({ bytes: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]) })),
  // Cut inside the last line, before its closing bracket: the last entry (or the HAR document) is unfinished.
  fc.nat().map((n) => (bytes: Buffer) => {
    const end = bytes.lastIndexOf("}");
    const start = bytes.lastIndexOf("\n", end) + 1;
    return {
      bytes: bytes.subarray(0, start + 1 + (n % Math.max(1, end - start - 1))),
      usability: "unusable",
    };
  }),
  // Invalid UTF-8 spliced inside the first string of the file.
  fc.constantFrom(...INVALID_UTF8).map((bad) => (bytes: Buffer) => {
    const at = bytes.indexOf('"') + 1;
    return {
      bytes: Buffer.concat([bytes.subarray(0, at), Buffer.from(bad), bytes.subarray(at)]),
      usability: "unusable",
    };
  }),
];

const recording = (): fc.Arbitrary<Recording> =>
  fc
    .record({
      kind: fc.constantFrom("har" as const, "ndjson" as const),
      picks: fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
      edits: fc.array(fc.oneof(...entryEdits), { maxLength: 3 }),
      byteEdit: fc.oneof(...byteEdits),
    })
    .map(({ kind, picks, edits, byteEdit }) => {
      const entries = baseEntries(kind, picks);
      let usability: Usability = "usable";
      for (const edit of edits) {
        const made = edit(entries);
        if (made === "unusable" || (made === "either" && usability === "usable")) usability = made;
      }
      const text =
        kind === "har" ? toHar(entries) : `${entries.map((e) => JSON.stringify(e) ?? "null").join("\n")}\n`;
      const edited = byteEdit(Buffer.from(text));
      return { kind, bytes: edited.bytes, usability: edited.usability ?? usability };
    });

let counter = 0;

/** The invariants of one run. */
function assertInvariants(
  run: { status: number; stdout: string; stderr: string },
  file: string,
  format: string,
  usability: Usability,
): void {
  expect(containsCanary(run.stdout + run.stderr)).toBe(false);
  expect(hasStackTrace(run.stderr)).toBe(false);
  if (run.status === 2) {
    expect(usability).not.toBe("usable");
    // One line, naming the file (and the entry or line when there is one); nothing on stdout.
    expect(run.stdout).toBe("");
    expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(run.stderr.startsWith(`idv-conformance: ${file}`)).toBe(true);
    return;
  }
  expect(usability).not.toBe("unusable");
  expect([0, 1]).toContain(run.status);
  expect(run.stderr).toBe("");
  // The report is whole.
  if (format === "json") expect(JSON.parse(run.stdout).summary.entries).toBeGreaterThan(0);
  if (format === "junit") expect(run.stdout.trimEnd().endsWith("</testsuites>")).toBe(true);
  if (format === "text") expect(run.stdout).toMatch(/\d+ checked: \d+ passed, \d+ failed/);
}

describe("idv-conformance on hostile recordings", () => {
  const before = prototypeSnapshot();

  it("holds its invariants in every format (in process)", async () => {
    await fc.assert(
      fc.asyncProperty(recording(), fc.constantFrom("text", "json", "junit"), async (rec, format) => {
        const file = join(dir, `hostile-${counter++}.${rec.kind}`);
        writeFileSync(file, rec.bytes);
        const run = await runMain(["check", file, "--format", format]);
        assertInvariants(run, file, format, rec.usability);
        assertPrototypesUntouched(before);
        rmSync(file);
      }),
      { numRuns: 120, seed: 12 },
    );
  });

  it("holds them as a process too", async () => {
    const samples = fc.sample(recording(), { numRuns: 3, seed: 14 });
    for (const [i, rec] of samples.entries()) {
      const format = ["text", "json", "junit"][i % 3] as string;
      const file = join(dir, `process-${i}.${rec.kind}`);
      writeFileSync(file, rec.bytes);
      assertInvariants(runCli(["check", file, "--format", format]), file, format, rec.usability);
    }
  });
});
