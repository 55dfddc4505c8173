// Every URL flag of `probe` and `receiver` goes through one intake: a user name or password is
// refused (Node would send it as Basic credentials on every request), a query is refused where the
// command builds its own, and where it is sent, its values are never printed.
import { execFile } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shownUrl, takeUrl, URL_FLAGS } from "../../conformance/run/url-intake.js";
import type { ActiveResult } from "../../conformance/probe/active-report.js";
import { runInProcess } from "./fixtures/probe/run-cli.js";

const SECRET = "s3cr3t-9f1c-never-printed";

/** Each URL flag, and the command line that gives it `value` (every other input usable). */
const FLAG_LINES: Record<keyof typeof URL_FLAGS, (value: string) => string[]> = {
  baseUrl: (v) => ["probe", "--base-url", v, "--key", "k", "--secret", "s"],
  receiverUrl: (v) => ["receiver", v],
  workflowUrl: (v) => ["receiver", "http://127.0.0.1:1/events", "--workflow-url", v],
};

/** Bad values, and what the refusal says after the flag's name. */
const BAD: [label: string, value: string, says: string][] = [
  ["not a URL", `not a url ${SECRET}`, "is not a URL"],
  ["another scheme", `ftp://127.0.0.1/${SECRET}`, "must be an http or https URL"],
  ["user and password", `http://user:${SECRET}@127.0.0.1:1/x`, "must not hold a user name or password"],
  ["a user name alone", `http://${SECRET}@127.0.0.1:1/x`, "must not hold a user name or password"],
  ["a password alone", `https://:${SECRET}@127.0.0.1:1/x`, "must not hold a user name or password"],
];

const rows = (Object.keys(FLAG_LINES) as (keyof typeof URL_FLAGS)[]).flatMap((flag) =>
  BAD.map(([label, value, says]) => [flag, label, value, says] as const),
);

describe("every URL flag of probe and receiver", () => {
  it("is in the table", () => {
    expect(Object.keys(FLAG_LINES).sort()).toEqual(Object.keys(URL_FLAGS).sort());
  });

  it.each(rows)("%s: %s is refused with exit 2, never echoed", async (flag, _label, value, says) => {
    const run = await runInProcess(FLAG_LINES[flag](value));
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`idv-conformance: ${URL_FLAGS[flag].name} ${says}`);
    expect(run.stderr).not.toContain(SECRET);
    expect(run.stdout).toBe("");
  });

  it("--base-url: a query is refused (the probe builds each request's query)", async () => {
    const run = await runInProcess(FLAG_LINES.baseUrl(`http://127.0.0.1:1/?key=${SECRET}`));
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("--base-url must not hold a query");
    expect(run.stderr).not.toContain(SECRET);
  });

  it("the receiver's URLs keep their query", () => {
    for (const flag of [URL_FLAGS.receiverUrl, URL_FLAGS.workflowUrl])
      expect(takeUrl(`http://127.0.0.1:1/x?key=${SECRET}`, flag).search).toBe(`?key=${SECRET}`);
  });
});

describe("shownUrl", () => {
  it.each([
    ["http://127.0.0.1:8080/events", "http://127.0.0.1:8080/events"],
    ["http://127.0.0.1:8080/events?key=abc", "http://127.0.0.1:8080/events?key=[redacted]"],
    ["http://h/e?a=1&b=&c&&d=x=y#frag", "http://h/e?a=[redacted]&b=[redacted]&[redacted]&&d=[redacted]"],
    ["https://h/e?", "https://h/e"],
  ])("%s shows as %s", (url, shown) => {
    expect(shownUrl(new URL(url))).toBe(shown);
  });

  it("never shows a query value, whatever it holds", () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ maxLength: 10 }), fc.string(), (before, name, after) => {
        const value = `${before}CANARY${after}`;
        const query = `${encodeURIComponent(name.replace(/CANARY/g, ""))}=${encodeURIComponent(value)}`;
        const shown = shownUrl(new URL(`http://h/e?${query}`));
        expect(shown).not.toContain("CANARY");
        expect(shown).not.toContain(encodeURIComponent("CANARY"));
      }),
    );
  });
});

describe("receiver with a secret in its URL's query", () => {
  const seen: { url: string; authorization: string | undefined }[] = [];
  // Refuses every delivery, so that every result has a reproducer.
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? "", authorization: req.headers.authorization });
    req.resume().on("end", () => res.writeHead(500).end());
  });
  let origin = "";
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("sends it, and prints it in no format: [redacted] in the target, a variable in reproducers", async () => {
    for (const format of ["text", "json", "junit"]) {
      seen.length = 0;
      const run = await runInProcess(["receiver", `${origin}/events?key=${SECRET}&v=2`, "--format", format]);
      expect(run.status).toBe(1);
      expect(run.stdout).not.toContain(SECRET);
      expect(run.stdout).toContain("IDV_RECEIVER_QUERY");
      if (format !== "junit") expect(run.stdout).toContain(`${origin}/events?key=[redacted]&v=[redacted]`);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.every((s) => s.url === `/events?key=${SECRET}&v=2`)).toBe(true);
    }
  }, 60_000);

  it("its reproducer sends the same URL with the query from the environment", async () => {
    const run = await runInProcess(["receiver", `${origin}/events?key=${SECRET}`, "--format", "json"]);
    const report = JSON.parse(run.stdout) as { target: string; results: ActiveResult[] };
    expect(report.target).toBe(`${origin}/events?key=[redacted]`);
    const curl = report.results[0]?.curl;
    expect(curl).toContain(`'${origin}/events?'"$IDV_RECEIVER_QUERY"`);
    seen.length = 0;
    await new Promise<void>((resolve, reject) =>
      execFile(
        "bash",
        ["-c", curl!],
        { env: { ...process.env, IDV_RECEIVER_QUERY: `key=${SECRET}` } },
        (e) => (e ? reject(e) : resolve()),
      ),
    );
    expect(seen.map((s) => s.url)).toEqual([`/events?key=${SECRET}`]);
  }, 60_000);

  it("a user name and password in the URL: exit 2 before any request", async () => {
    seen.length = 0;
    const run = await runInProcess(["receiver", `http://user:${SECRET}@${origin.slice(7)}/events`]);
    expect(run.status).toBe(2);
    expect(run.stderr).not.toContain(SECRET);
    expect(seen).toEqual([]);
  });
});
