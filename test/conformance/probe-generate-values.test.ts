// The generators' uploads, path values and determinism, on the fixture contract: real files of the
// accepted formats under generated names, each broken upload refused by both judges; path values
// across their range; the same seed giving the same bytes, bodies small.
import { readFileSync } from "node:fs";
import { inflateSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { probeOperations } from "../../conformance/probe/contract-operations.js";
import {
  bodyArbitraries,
  MAX_GENERATED_BODY,
  pathValueArbitrary,
} from "../../conformance/probe/generate/index.js";
import { jpegFile, pngFile } from "../../conformance/probe/generate/files.js";
import { UnsatisfiableSchema } from "../../conformance/probe/generate/schema-shape.js";
import { formParts } from "../../src/contract/multipart.js";
import { oracleFor } from "./support/generate-oracle.js";

const document = parse(readFileSync(new URL("fixtures/generate/contract.yaml", import.meta.url), "utf8"));
const oracle = oracleFor(document);
const operations = new Map(probeOperations(document).map((op) => [op.operationId, op]));
const op = (id: string) => operations.get(id)!;
const upload = op("uploadFile");
const RUNS = 200;
const sample = <T>(arb: fc.Arbitrary<T>, seed = 3) => fc.sample(arb, { numRuns: RUNS, seed });

/** The chunks of a PNG, each CRC-checked by zlib's own crc32 where Node has it. */
function pngChunks(bytes: Buffer): { type: string; data: Buffer }[] {
  expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  const chunks: { type: string; data: Buffer }[] = [];
  for (let at = 8; at < bytes.length;) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.subarray(at + 4, at + 8).toString("latin1");
    chunks.push({ type, data: bytes.subarray(at + 8, at + 8 + length) });
    at += 12 + length;
  }
  return chunks;
}

describe("uploads", () => {
  it("sends real files of the accepted formats, under generated names, accepted by both judges", () => {
    const uploads = sample(bodyArbitraries(document, upload.body!, "m").valid);
    const names = new Set<string>();
    for (const g of uploads) {
      expect(oracle.judge(upload, g.body), JSON.stringify(g.value)).toMatchObject({
        suite: [],
        server: undefined,
      });
      const { fileName, mediaType } = g.value as { fileName: string; mediaType: string };
      names.add(fileName);
      expect(["image/png", "application/pdf"]).toContain(mediaType);
      expect(fileName.toLowerCase()).toMatch(mediaType === "image/png" ? /\.png$/ : /\.pdf$/);
      const [part] =
        formParts({ kind: "bytes", bytes: g.body.bytes }, g.body.contentType.split("boundary=")[1]) ?? [];
      if (mediaType === "application/pdf") expect(part?.bytes?.subarray(0, 5).toString()).toBe("%PDF-");
      else expect(pngChunks(Buffer.from(part!.bytes!)).map((c) => c.type)).toEqual(["IHDR", "IDAT", "IEND"]);
    }
    expect([...names].some((n) => /[^ -~]/.test(n))).toBe(true);
    expect([...names].some((n) => n.includes(" "))).toBe(true);
  });

  it("breaks an upload in one rule each, every one refused by both judges", () => {
    const kinds = new Set<string>();
    for (const b of sample(bodyArbitraries(document, upload.body!, "m").broken!)) {
      kinds.add(b.kind);
      const verdict = oracle.judge(upload, b.body);
      expect(verdict.refused, `${b.kind} ${JSON.stringify(verdict)}`).toBe(true);
    }
    expect([...kinds].sort()).toEqual(["file-extension", "file-type", "multiple-files", "required"]);
  });

  it("makes a PNG whose pixels inflate to its size, and a JPEG from its start to its end marker", () => {
    const chunks = pngChunks(pngFile(3, 200));
    expect(chunks[0]!.data.readUInt32BE(0)).toBe(3);
    expect(inflateSync(chunks[1]!.data)).toEqual(
      Buffer.from([0, 200, 200, 200, 0, 200, 200, 200, 0, 200, 200, 200]),
    );
    for (const level of [0, 1, 127, 128, 255]) {
      const jpeg = jpegFile(level);
      expect([...jpeg.subarray(0, 2), ...jpeg.subarray(-2)]).toEqual([0xff, 0xd8, 0xff, 0xd9]);
    }
  });
});

describe("path values", () => {
  it("takes integer ids across their range, both bounds included", () => {
    const ids = sample(pathValueArbitrary(document, op("replaceThing").pathParams[0]!.schema)).map(Number);
    expect(ids.every((n) => Number.isInteger(n) && n >= 1 && n <= 5000)).toBe(true);
    expect(ids).toEqual(expect.arrayContaining([1, 5000]));
  });

  it("takes UUIDs for a uuid parameter, and strings of a parameter's pattern", () => {
    const uuids = sample(pathValueArbitrary(document, op("touchNote").pathParams[0]!.schema));
    expect(uuids.every((u) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(u))).toBe(
      true,
    );
    const codes = sample(pathValueArbitrary(document, op("searchCode").pathParams[0]!.schema));
    expect(codes.every((c) => /^[A-Z]{2}[0-9]{2}$/.test(c))).toBe(true);
  });
});

describe("determinism and size", () => {
  it("makes the same bytes from the same seed, and other bytes from another", () => {
    for (const id of ["createThing", "uploadFile"]) {
      const { valid, broken } = bodyArbitraries(document, op(id).body!, "m");
      const bytes = (seed: number) => [
        ...fc.sample(valid, { numRuns: 30, seed }).map((g) => g.body.bytes.toString("base64")),
        ...fc
          .sample(broken!, { numRuns: 30, seed })
          .map((b) => `${b.kind} ${b.body.bytes.toString("base64")}`),
      ];
      expect(bytes(99)).toEqual(bytes(99));
      expect(bytes(99)).not.toEqual(bytes(100));
    }
  });

  it("keeps every body small", () => {
    for (const op of operations.values()) {
      const { valid, broken } = bodyArbitraries(document, op.body!, "m");
      for (const g of [...sample(valid), ...sample(broken!)])
        expect(g.body.bytes.length).toBeLessThanOrEqual(MAX_GENERATED_BODY);
    }
  });

  it("shrinks a failure to a small body through fast-check's own shrinking", () => {
    const { valid } = bodyArbitraries(document, op("createThing").body!, "m");
    // A property that fails for any name of four code points or more: the counterexample shrinks to one.
    const run = fc.check(
      fc.property(valid, (g) => [...(g.value as { name: string }).name].length < 4),
      { seed: 5 },
    );
    expect(run.failed).toBe(true);
    const [smallest] = run.counterexample as [{ value: { name: string } }];
    expect([...smallest.value.name].length).toBe(4);
  });
});

describe("shrinking a broken body", () => {
  it("shrinks a failing broken body to what the schema requires, still breaking the same rule", () => {
    const { broken } = bodyArbitraries(document, op("createThing").body!, "m");
    // A "deployment" that accepts every name too long: the failure is any maxLength break of /name.
    const accepts = (b: { rule: string }) => b.rule.startsWith("/name longer");
    const run = fc.check(
      fc.property(broken!, (b) => !accepts(b)),
      { seed: 8, numRuns: 500 },
    );
    expect(run.failed).toBe(true);
    const [smallest] = run.counterexample as [{ rule: string; body: { bytes: Buffer } }];
    expect(accepts(smallest)).toBe(true);
    expect(run.numShrinks).toBeGreaterThan(0);
    // Only what the schema requires is left, the name one past its maxLength.
    const body = JSON.parse(smallest.body.bytes.toString());
    expect(Object.keys(body).sort()).toEqual(["code", "count", "kind", "name", "person"]);
    expect([...body.name].length).toBe(9);
  });
});

describe("schemas the generators cannot meet", () => {
  const body = (schema: unknown) => ({ mediaType: "application/json", required: true, schema, examples: [] });

  it("says so rather than drawing for ever: alternatives not told apart, a pattern never met", () => {
    const alike = { oneOf: [{ type: "object" }, { type: "object" }] };
    expect(() => bodyArbitraries({}, body(alike), "m")).toThrow(UnsatisfiableSchema);
    const long = { type: "string", pattern: "^[0-9]+$", minLength: 400 };
    expect(() => bodyArbitraries({}, body(long), "m")).toThrow(UnsatisfiableSchema);
  });

  it("falls back on the schema's examples when its pattern is out of reach", () => {
    const long = { type: "string", pattern: "^[0-9]+$", minLength: 400, examples: ["7".repeat(400)] };
    const { valid } = bodyArbitraries({}, body(long), "m");
    expect(fc.sample(valid, { numRuns: 5, seed: 1 }).map((g) => g.value)).toEqual(
      Array(5).fill("7".repeat(400)),
    );
  });
});
