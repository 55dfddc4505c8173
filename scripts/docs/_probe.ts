import { chromium } from "playwright-core";
import { listen } from "../../src/server/static-files.js";
const dir = process.argv[2] ?? "/tmp/site1";
const s = await listen(dir, 0);
const b = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
  ],
});
for (const scheme of ["light", "dark"] as const) {
  const ctx = await b.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: scheme });
  await ctx.route("**/*", (r) =>
    r.request().url().startsWith(s.url)
      ? r.continue()
      : (console.log("EXTERNAL", r.request().url()), r.abort()),
  );
  for (const f of (
    process.argv[3] ??
    "index.html,api.html,webhooks.html,gaps.html,changelog.html,guide-client.html,nope.html"
  ).split(",")) {
    const p = await ctx.newPage();
    p.on("console", (m) => m.type() === "error" && console.log(f, "console:", m.text()));
    p.on("pageerror", (e) => console.log(f, "pageerror", e.message));
    await p.goto(s.url + f);
    await p.waitForTimeout(f.startsWith("api") ? 2500 : 300);
    await p.screenshot({ path: `/tmp/cs/${scheme}-${f.replace(/\W/g, "_")}.png` });
    await p.close();
  }
  await ctx.close();
}
const ctx = await b.newContext({ viewport: { width: 390, height: 800 } });
const p = await ctx.newPage();
await p.goto(s.url + "api.html");
await p.waitForTimeout(2500);
await p.screenshot({ path: "/tmp/cs/narrow-api.png" });
await p.goto(s.url + "index.html");
await p.screenshot({ path: "/tmp/cs/narrow-index.png" });
await b.close();
await s.close();
