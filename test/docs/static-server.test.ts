import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listen, type RunningServer } from "../../scripts/docs/static-server.js";

let dir: string;
let site: string;
let server: RunningServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "idv-static-"));
  site = join(dir, "site");
  mkdirSync(join(site, "assets"), { recursive: true });
  writeFileSync(join(site, "index.html"), "<h1>home</h1>");
  writeFileSync(join(site, "assets", "style.css"), "body{}");
  writeFileSync(join(dir, "secret.txt"), "outside the site");
  server = await listen(site, 0);
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

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

  it("answers 404 for a missing file and 405 for other methods", async () => {
    expect((await fetch(new URL("nope.html", server.url))).status).toBe(404);
    expect((await fetch(server.url, { method: "POST" })).status).toBe(405);
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
