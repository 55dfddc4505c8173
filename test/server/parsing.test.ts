// The shared plumbing's parsers never throw and never read more into input than it says.
import { execFileSync } from "node:child_process";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decodeJsonBody,
  isJsonMediaType,
  jsonDepth,
  MAX_JSON_DEPTH,
  MAX_JSON_VALUES,
  parseMediaType,
  parsePort,
  parseRequestTarget,
  queryRecord,
} from "../../src/server/index.js";
import { fromRoot } from "../../scripts/lib/paths.js";
import { deeplyNested, HOSTILE_TARGETS, hostileTarget, INVALID_UTF8 } from "../support/hostile.js";

describe("parseRequestTarget", () => {
  it("keeps scheme-relative and broken paths as paths, where new URL() throws", () => {
    expect(parseRequestTarget("//")).toEqual({ pathname: "//", query: "" });
    expect(parseRequestTarget("//%zz/api")).toEqual({ pathname: "//%zz/api", query: "" });
    expect(parseRequestTarget("//a:99999/x")).toEqual({ pathname: "//a:99999/x", query: "" });
    expect(parseRequestTarget("/a/b?c=1&d")).toEqual({ pathname: "/a/b", query: "c=1&d" });
  });

  it("takes the path of absolute-form and refuses asterisk, authority and broken URLs", () => {
    expect(parseRequestTarget("http://host:8/api/v4/x?y=1")).toEqual({ pathname: "/api/v4/x", query: "y=1" });
    expect(parseRequestTarget("http://")).toBeUndefined();
    expect(parseRequestTarget("http://[::1/x")).toBeUndefined();
    expect(parseRequestTarget("*")).toBeUndefined();
    expect(parseRequestTarget("host:443")).toBeUndefined();
    expect(parseRequestTarget("/\u0000")).toBeUndefined();
    expect(parseRequestTarget(undefined)).toBeUndefined();
  });

  it("never throws, and a path it returns starts with /", () => {
    for (const target of HOSTILE_TARGETS) expect(() => parseRequestTarget(target)).not.toThrow();
    fc.assert(
      fc.property(fc.oneof(hostileTarget(), fc.string()), (raw) => {
        const parsed = parseRequestTarget(raw);
        return parsed === undefined || parsed.pathname.startsWith("/");
      }),
      { numRuns: 300 },
    );
  });

  it("keeps a query name such as __proto__ a name", () => {
    const query = queryRecord("__proto__=x&constructor=1&a=1&a=2");
    expect(Object.getPrototypeOf(query)).toBeNull();
    expect(query.__proto__).toBe("x");
    expect(query.a).toEqual(["1", "2"]);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

describe("media types", () => {
  it("matches JSON by essence and suffix, never by prefix", () => {
    expect(isJsonMediaType("application/json")).toBe(true);
    expect(isJsonMediaType("Application/JSON; charset=utf-8")).toBe(true);
    expect(isJsonMediaType("application/problem+json")).toBe(true);
    expect(isJsonMediaType("application/json-evil")).toBe(false);
    expect(isJsonMediaType("application/jsonp")).toBe(false);
    expect(isJsonMediaType("text/json+xml")).toBe(false);
    expect(isJsonMediaType("application/json+evil")).toBe(false);
    expect(isJsonMediaType("json")).toBe(false);
    expect(isJsonMediaType(undefined)).toBe(false);
    // Read as UTF-8 whatever it says: a body declared in another charset is not one the servers can read.
    expect(isJsonMediaType('application/json; charset="UTF8"')).toBe(true);
    expect(isJsonMediaType("application/json; charset=utf-16")).toBe(false);
    expect(isJsonMediaType("application/problem+json; charset=latin1")).toBe(false);
  });

  it("reads parameters into a map, first one wins", () => {
    const media = parseMediaType('multipart/form-data; boundary="abc"; boundary=x; __proto__=1');
    expect(media?.parameters.get("boundary")).toBe("abc");
    expect(media?.parameters.get("__proto__")).toBe("1");
    expect(parseMediaType("a b/c")).toBeUndefined();
  });
});

describe("decodeJsonBody", () => {
  it("refuses every invalid UTF-8 sequence instead of replacing it", () => {
    for (const bad of INVALID_UTF8) {
      const bytes = Buffer.concat([Buffer.from('{"a":"'), Buffer.from(bad), Buffer.from('"}')]);
      expect(decodeJsonBody(bytes)).toEqual({ ok: false, problem: "utf8" });
    }
    expect(decodeJsonBody(Buffer.from('{"a":"é"}'))).toEqual({ ok: true, value: { a: "é" } });
  });

  it("refuses broken JSON and nesting past the limit, counting without recursion", () => {
    expect(decodeJsonBody(Buffer.from("{"))).toEqual({ ok: false, problem: "json" });
    expect(decodeJsonBody(Buffer.from(deeplyNested(100_000)))).toEqual({ ok: false, problem: "depth" });
    expect(decodeJsonBody(Buffer.from(deeplyNested(100_000, "object")), 10)).toEqual({
      ok: false,
      problem: "depth",
    });
    expect(jsonDepth(JSON.parse(deeplyNested(50)))).toBe(50);
    expect(jsonDepth(3)).toBe(0);
  });

  it("measures a body before parsing it: 12 MB of nesting or of empty objects is refused within a 64 MB heap", () => {
    // In a child with a small heap: parsing either body first would run it out of memory.
    const script = `
      const { decodeJsonBody } = await import(${JSON.stringify(fromRoot("src/server/body.ts"))});
      const nested = Buffer.from("[".repeat(6e6) + "]".repeat(6e6));
      const many = Buffer.from("[" + "{},".repeat(4e6 - 1) + "{}]");
      console.log(JSON.stringify([decodeJsonBody(nested), decodeJsonBody(many)]));`;
    const out = execFileSync(
      process.execPath,
      ["--max-old-space-size=64", "--import", "tsx", "--input-type=module", "-e", script],
      { cwd: fromRoot(), encoding: "utf8" },
    );
    expect(JSON.parse(out)).toEqual([
      { ok: false, problem: "depth" },
      { ok: false, problem: "values" },
    ]);
  });

  it("takes a body at the limits", () => {
    const body = `[${"0,".repeat(MAX_JSON_VALUES - 2)}0]`;
    expect(decodeJsonBody(Buffer.from(body)).ok).toBe(true);
    expect(decodeJsonBody(Buffer.from(`[${body}]`))).toEqual({ ok: false, problem: "values" });
    expect(decodeJsonBody(Buffer.from(deeplyNested(MAX_JSON_DEPTH))).ok).toBe(true);
  });

  it("keeps a __proto__ member an own member", () => {
    const read = decodeJsonBody(Buffer.from('{"__proto__":{"x":1}}'));
    expect(read.ok && Object.keys(read.value as object)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

describe("parsePort", () => {
  it("takes 0..65535 and refuses anything else by name", () => {
    expect(parsePort(undefined, 4010)).toBe(4010);
    expect(parsePort("0", 1)).toBe(0);
    expect(parsePort("65535", 1)).toBe(65535);
    for (const bad of ["65536", "-1", "1e3", "0x10", "4.5", "abc"]) {
      expect(() => parsePort(bad, 1, "MOCK_PORT")).toThrow(/MOCK_PORT must be an integer/);
    }
  });
});
