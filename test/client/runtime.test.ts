import { afterEach, describe, expect, it } from "vitest";
import { looksLikeBrowser } from "../../src/client/runtime.js";
import { createClient } from "../../src/index.js";
import { BASE, recordingFetch } from "./recorder.js";

const BROWSER_AGENT =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36";

describe("browser refusal", () => {
  const added: string[] = [];
  const define = (name: string, value: unknown) => {
    Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
    added.push(name);
  };
  afterEach(() => {
    for (const name of added.splice(0)) delete (globalThis as Record<string, unknown>)[name];
  });

  it.each([
    ["window", () => define("window", {})],
    ["document", () => define("document", {})],
    ["a web worker's importScripts", () => define("importScripts", () => {})],
  ])("refuses to create a client when %s is defined", (_name, setUp) => {
    setUp();
    expect(() => createClient(BASE)).toThrow(
      /refusing to create a client with credentials in what looks like a browser/,
    );
    expect(() => createClient(BASE)).toThrow(/CRED_AT_RISK/);
    expect(() => createClient(BASE)).toThrow(/runtime: "server"/);
  });

  it("creates the client in a browser-like scope when the caller says it is a server", async () => {
    define("window", {});
    const { fetch, sent } = recordingFetch();
    const client = createClient({ ...BASE, fetch, runtime: "server" });
    await client.GET("/api/v4/outsource_cases/{id}", { params: { path: { id: 1 } } });
    expect(sent).toHaveLength(1);
  });

  it.each([
    ["a browser navigator", { navigator: { userAgent: BROWSER_AGENT } }, true],
    ["a page", { window: {}, document: {} }, true],
    ["Node.js 22's navigator", { navigator: { userAgent: "Node.js/22" } }, false],
    ["Deno", { navigator: { userAgent: "Deno/2.1.4" } }, false],
    ["an edge worker", { navigator: { userAgent: "Cloudflare-Workers" } }, false],
    ["a bare scope", {}, false],
  ])("looksLikeBrowser(%s) is %s", (_name, scope, want) => {
    expect(looksLikeBrowser(scope)).toBe(want);
  });

  it("lets this Node.js process create clients", () => {
    expect(looksLikeBrowser()).toBe(false);
    expect(() => createClient(BASE)).not.toThrow();
  });
});

describe("options", () => {
  it.each(["baseUrl", "apiKey", "secret"] as const)("rejects a missing %s with a clear error", (name) => {
    expect(() => createClient({ ...BASE, [name]: "" })).toThrow(
      `createClient: options.${name} must be a non-empty string`,
    );
  });

  it.each([
    "127.0.0.1:4510",
    "localhost:4510",
    "service.test",
    "/api",
    "ftp://service.test",
    "file:///tmp/x",
  ])(
    "refuses the base URL %s at createClient with a TypeError naming baseUrl, never quoting it",
    (baseUrl) => {
      let thrown: unknown;
      try {
        createClient({ ...BASE, baseUrl });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(TypeError);
      expect((thrown as Error).message).toMatch(
        /^createClient: options\.baseUrl must be an absolute http or https URL/,
      );
      expect((thrown as Error).message).not.toContain(baseUrl);
    },
  );

  it.each(["http://127.0.0.1:4510", "https://idv.example.com/", "https://idv.example.com/gateway"])(
    "takes the base URL %s",
    (baseUrl) => {
      expect(() => createClient({ ...BASE, baseUrl })).not.toThrow();
    },
  );
});
