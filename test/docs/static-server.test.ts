import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listen, NOT_FOUND_FILE, ROUTES_FILE, type RunningServer } from "../../src/server/static-files.js";
import { hostileTarget, rawStatus } from "../support/hostile.js";

let dir: string;
let site: string;
let server: RunningServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "idv-static-"));
  site = join(dir, "site");
  mkdirSync(join(site, "assets"), { recursive: true });
  writeFileSync(join(site, "index.html"), "<h1>home</h1>");
  writeFileSync(join(site, "assets", "style.css"), "body{}");
  writeFileSync(join(site, "api.html"), "<h1>reference</h1>");
  writeFileSync(join(site, NOT_FOUND_FILE), "<h1>styled not found</h1>");
  writeFileSync(
    join(site, ROUTES_FILE),
    JSON.stringify({ page: "api.html", prefixes: ["pep-and-sanctions"] }),
  );
  writeFileSync(join(dir, "secret.txt"), "outside the site");
  server = await listen(site, 0);
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Raw bytes written without half-closing the socket (a half-closed client makes Node's server
 * drop an answer still being read from disk), then whatever comes back until the server closes.
 */
function sendKeepingOpen(port: number, bytes: string): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect({ port, host: "127.0.0.1" });
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(Buffer.concat(chunks).toString("latin1"));
    };
    const timer = setTimeout(done, 2_000);
    socket.on("connect", () => socket.write(bytes));
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("close", done);
    socket.on("error", done);
  });
}

/** A raw GET, so that "../" reaches the server unnormalised. */
function rawGet(path: string): Promise<{ status: number; body: string }> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    request({ host: "127.0.0.1", port, path, method: "GET" }, (response) => {
      let body = "";
      response.on("data", (chunk) => {
        body += chunk;
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    })
      .on("error", reject)
      .end();
  });
}

describe("the docs static server", () => {
  it("listens on 127.0.0.1 only", () => {
    expect(new URL(server.url).hostname).toBe("127.0.0.1");
  });

  it("serves index.html for / and files with their content type", async () => {
    const home = await fetch(server.url);
    expect(home.status).toBe(200);
    expect(home.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await home.text()).toBe("<h1>home</h1>");
    const css = await fetch(new URL("assets/style.css", server.url));
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
  });

  it("answers 404 with the site's own page for a missing file, and 405 for other methods", async () => {
    const missing = await fetch(new URL("nope.html", server.url));
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await missing.text()).toBe("<h1>styled not found</h1>");
    expect((await fetch(server.url, { method: "POST" })).status).toBe(405);
  });

  it("sends a client-side route of the reference back to its page, fragment and all", async () => {
    for (const path of ["/pep-and-sanctions", "/pep-and-sanctions/createpepcheck"]) {
      const answer = await fetch(new URL(path, server.url), { redirect: "manual" });
      expect(answer.status, path).toBe(302);
      expect(answer.headers.get("location"), path).toBe(`/api.html#${path}`);
    }
    // Not a route of the reference: the 404 page, not the reference.
    expect((await fetch(new URL("/kyc-nowhere", server.url), { redirect: "manual" })).status).toBe(404);
    const followed = await fetch(new URL("/pep-and-sanctions", server.url));
    expect(await followed.text()).toBe("<h1>reference</h1>");
  });

  it("answers any hostile request target without serving outside the folder or failing", async () => {
    const { port } = new URL(server.url);
    await fc.assert(
      fc.asyncProperty(hostileTarget(), async (target) => {
        const answer = await sendKeepingOpen(
          Number(port),
          `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
        );
        const status = rawStatus(answer);
        expect(status, target).toBeDefined();
        expect(status, target).toBeLessThan(500);
        expect(answer).not.toContain("outside the site");
      }),
      { numRuns: 60 },
    );
  });

  it.each(["/../secret.txt", "/%2e%2e/secret.txt", "/assets/../../secret.txt"])(
    "never serves outside the folder: %s",
    async (path) => {
      const response = await rawGet(path);
      expect(response.status).not.toBe(200);
      expect(response.body).not.toContain("outside the site");
    },
  );
});
