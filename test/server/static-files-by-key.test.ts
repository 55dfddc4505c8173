// The docs site read from a lookup by key (a single executable's assets): served as from disk, and
// no request path, however hostile, makes it look up a key outside the site.
import { request } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSafeServer } from "../../src/server/index.js";
import { filesByKey, NOT_FOUND_FILE, ROUTES_FILE, staticFiles } from "../../src/server/static-files.js";

const FILES = new Map<string, string>([
  ["index.html", "<h1>home</h1>"],
  ["assets/style.css", "body{}"],
  ["api.html", "<h1>reference</h1>"],
  [NOT_FOUND_FILE, "<h1>styled not found</h1>"],
  [ROUTES_FILE, JSON.stringify({ page: "api.html", prefixes: ["pep-and-sanctions"] })],
]);
const asked: string[] = [];
const lookup = (key: string): Buffer | undefined => {
  asked.push(key);
  const text = FILES.get(key);
  return text === undefined ? undefined : Buffer.from(text);
};
const server = createSafeServer(staticFiles("/nowhere/site", "/docs/", filesByKey("/nowhere/site", lookup)), {
  errorBody: (_status, message) => ({ message }),
});
let port = 0;

beforeAll(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve)));
beforeAll(() => {
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** GET a raw request target; the status, headers and body. */
function get(path: string): Promise<{ status: number; type: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method: "GET" }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, type: res.headers["content-type"], body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("staticFiles over filesByKey", () => {
  it("serves the files by key, the index of a folder, the site's 404 page and its client-side routes", async () => {
    expect(await get("/docs/")).toEqual({
      status: 200,
      type: "text/html; charset=utf-8",
      body: "<h1>home</h1>",
    });
    expect(await get("/docs/assets/style.css")).toMatchObject({ status: 200, body: "body{}" });
    expect(await get("/docs/nope.html")).toMatchObject({ status: 404, body: "<h1>styled not found</h1>" });
    expect((await get("/docs/pep-and-sanctions/create")).status).toBe(302);
  });

  it("never looks up a key outside the site, whatever the path", async () => {
    const segment = fc.oneof(
      fc.constantFrom("..", ".", "%2e%2e", "%2E%2E", "..%2f", "%5c..", "%00", "", "index.html", "assets"),
      fc.string({ maxLength: 6 }).map(encodeURIComponent),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { maxLength: 6 }), async (segments) => {
        asked.length = 0;
        const { status } = await get(`/docs/${segments.join("/")}`);
        expect(status).toBeGreaterThanOrEqual(200);
        for (const key of asked) {
          expect(key.split("/")).not.toContain("..");
          expect(key.startsWith("/")).toBe(false);
        }
      }),
      { numRuns: 200 },
    );
  });
});
