// The sandbox serves the docs site of its version under /docs/ (the package ships it in dist/site),
// and GET /_sandbox, the address it prints, answers the control API's operations.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConformanceChecker, exchangeFromHar } from "../../conformance/index.js";
import { fromRoot } from "../../scripts/lib/paths.js";
import { Sandbox } from "../../sandbox/sandbox.js";
import { serveSandbox } from "../../sandbox/http/server.js";
import type { Listening } from "../../src/server/index.js";
import { recordingFetch } from "../support/har-recorder.js";

const site = mkdtempSync(join(tmpdir(), "idv-site-"));
const sandboxes: Sandbox[] = [];
const servers: Listening[] = [];

/** A sandbox served with these options; closed after the file. */
async function serve(options: Parameters<typeof serveSandbox>[1]): Promise<string> {
  const sandbox = new Sandbox({ credentials: { apiKey: "k", secret: "s" } });
  sandboxes.push(sandbox);
  const listening = await serveSandbox(sandbox, { port: 0, ...options });
  servers.push(listening);
  return listening.url;
}

let withDocs = "";
let withoutDocs = "";
beforeAll(async () => {
  writeFileSync(join(site, "index.html"), "<h1>Overview</h1>");
  writeFileSync(join(site, "404.html"), "<h1>Not part of the site</h1>");
  writeFileSync(join(site, "routes.json"), JSON.stringify({ page: "api.html", prefixes: ["pep"] }));
  mkdirSync(join(site, "assets"));
  writeFileSync(join(site, "assets", "style.css"), "body{}");
  withDocs = await serve({ docsDir: site });
  withoutDocs = await serve({ docsDir: null });
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await Promise.all(sandboxes.map((s) => s.close()));
  rmSync(site, { recursive: true, force: true });
});

describe("the docs site under /docs/", () => {
  it("serves the index page and the site's files, with their types", async () => {
    const index = await fetch(`${withDocs}/docs/`);
    expect(index.status).toBe(200);
    expect(index.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await index.text()).toBe("<h1>Overview</h1>");
    const css = await fetch(`${withDocs}/docs/assets/style.css`);
    expect([css.status, css.headers.get("content-type")]).toEqual([200, "text/css; charset=utf-8"]);
  });

  it("sends /docs to /docs/, a reference route to its page, and a miss to the site's 404 page", async () => {
    const bare = await fetch(`${withDocs}/docs`, { redirect: "manual" });
    expect([bare.status, bare.headers.get("location")]).toEqual([301, "/docs/"]);
    const route = await fetch(`${withDocs}/docs/pep/checks`, { redirect: "manual" });
    expect([route.status, route.headers.get("location")]).toEqual([302, "/docs/api.html#/pep/checks"]);
    const miss = await fetch(`${withDocs}/docs/nothing.html`);
    expect([miss.status, await miss.text()]).toEqual([404, "<h1>Not part of the site</h1>"]);
  });

  it("serves nothing outside the site, and only GET and HEAD", async () => {
    const escaped = await fetch(`${withDocs}/docs/..%2f..%2fpackage.json`);
    expect(escaped.status).toBe(400);
    const posted = await fetch(`${withDocs}/docs/`, { method: "POST", body: "x" });
    expect([posted.status, posted.headers.get("allow")]).toEqual([405, "GET, HEAD"]);
  });

  it("answers 404 saying so when the sandbox has no site (run from its sources)", async () => {
    const none = await fetch(`${withoutDocs}/docs/`);
    expect(none.status).toBe(404);
    expect(await none.json()).toEqual({
      error_code: "NOT_FOUND",
      message: "This sandbox serves no docs site.",
    });
  });
});

describe("GET /_sandbox", () => {
  const spec = JSON.parse(readFileSync(fromRoot("generated/sandbox-control.json"), "utf8"));

  it("lists every operation of the control document, and where the docs are", async () => {
    const answer = await fetch(`${withDocs}/_sandbox`);
    expect(answer.status).toBe(200);
    const index = (await answer.json()) as { operations: { method: string; path: string }[]; docs: unknown };
    const documented = Object.entries(spec.paths as Record<string, object>).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(index.operations.map((o) => `${o.method} ${o.path}`).sort()).toEqual(documented.sort());
    expect(index.operations).toContainEqual({
      method: "POST",
      path: "/_sandbox/clock/advance",
      summary: "Advance the virtual clock",
    });
    expect(index.docs).toBe("/docs/");
    const none = (await (await fetch(`${withoutDocs}/_sandbox`)).json()) as { docs: unknown };
    expect(none.docs).toBeNull();
  });

  it("answers as the control API's contract says", async () => {
    const checker = createConformanceChecker({ spec });
    const recorder = recordingFetch();
    await recorder.fetch(`${withDocs}/_sandbox`);
    const [entry] = recorder.entries;
    if (!entry) throw new Error("nothing recorded");
    expect(checker.checkExchange(exchangeFromHar(entry, 0)).ok).toBe(true);
    // The check can fail: an index without its docs member breaks the contract.
    const broken = structuredClone(entry);
    broken.response.content.text = JSON.stringify({ operations: [] });
    expect(checker.checkExchange(exchangeFromHar(broken, 0)).ok).toBe(false);
  });
});

describe("the first addresses a person opens", () => {
  const html = { accept: "text/html,application/xhtml+xml,*/*;q=0.8" };

  it("sends a browser at / to the docs site, and says where things are to anything else", async () => {
    const browser = await fetch(`${withDocs}/`, { headers: html, redirect: "manual" });
    expect(browser.status).toBe(302);
    expect(browser.headers.get("location")).toBe("/docs/");
    expect(await (await fetch(`${withDocs}/`, { headers: html })).text()).toBe("<h1>Overview</h1>");
    const script = await fetch(`${withDocs}/`);
    expect(script.status).toBe(200);
    expect(await script.json()).toMatchObject({ control: "/_sandbox", docs: "/docs/" });
    // Without a docs site, a browser gets where things are too.
    const bare = await fetch(`${withoutDocs}/`, { headers: html });
    expect(bare.status).toBe(200);
    expect(await bare.json()).toMatchObject({ control: "/_sandbox", docs: null });
  });

  it("answers /_sandbox/ (with its slash) with the control API's index", async () => {
    const slash = await fetch(`${withDocs}/_sandbox/`, { redirect: "manual" });
    expect(slash.status).toBe(301);
    expect(slash.headers.get("location")).toBe("/_sandbox");
    const followed = await fetch(`${withDocs}/_sandbox/`);
    expect(followed.status).toBe(200);
    expect(((await followed.json()) as { operations: unknown[] }).operations.length).toBeGreaterThan(5);
  });

  it("leaves / to the contract for any other method", async () => {
    expect((await fetch(`${withDocs}/`, { method: "POST" })).status).toBe(404);
  });
});
