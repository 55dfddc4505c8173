// One vocabulary: the service's address and credentials are IDV_BASE_URL, IDV_API_KEY and
// IDV_API_SECRET in every document, site sample, --help text and reproducer, as the client's samples,
// `probe`, `receiver`, `idv-sandbox` and `startSandbox().env` read them. Any other IDV_ name fails,
// as does an unprefixed variable for a key, secret, token or URL (API_SECRET, SANDBOX_URL…).
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { credentialHeaders } from "../../conformance/probe/credentials.js";
import { curlCommand } from "../../conformance/probe/curl.js";
import { operationSamples } from "../../scripts/docs/code-samples.js";
import { fromRoot } from "../../scripts/lib/paths.js";
import { runMain } from "../conformance/support/in-process.js";

/** Every IDV_ name the package speaks of, and what each is. */
const NAMES = new Set([
  "IDV_BASE_URL", // the service's (or the sandbox's, or the proxy's) base URL
  "IDV_API_KEY", // the API key
  "IDV_API_SECRET", // the API secret
  "IDV_RECEIVER_AUTH", // `receiver --auth` (bearer:TOKEN or basic:USER:PASS), which its reproducers read too
  "IDV_RECEIVER_TOKEN", // the receiver's bearer token, in the receiver samples
  "IDV_RECEIVER_QUERY", // the receiver URL's query, which may hold its secret, in reproducers
  "IDV_WORKFLOW_URL", // the workflow case webhook URL, in reproducers
  "IDV_WORKFLOW_PATH", // its path, in the receiver samples
  "IDV_CONFORMANCE_DEBUG",
  "IDV_CONFORMANCE_MAX_ENTRY_BYTES",
  "IDV_CONFORMANCE_WORKER_HEAP_MB",
  "IDV_TEST_BINARIES", // the repository's tests: the folder of single executables npm run test:binaries runs
]);

/** Variables of other programs the docs use, whose names are not ours to choose. */
const FOREIGN = new Set(["REDIS_URL"]);

/** Documents that quote others or the past: the interface document's own words, the changelog. */
const QUOTED = new Set(["docs/interface-document.md", "CHANGELOG.md"]);

/** The names in `text` the vocabulary does not have: other IDV_ names, unprefixed credentials. */
function strangers(text: string): string[] {
  const found = new Set<string>();
  for (const [name] of text.matchAll(/\bIDV_[A-Z0-9_]*/g)) if (!NAMES.has(name)) found.add(name);
  // A variable read or set ($X, ${X}, process.env.X, env.X, X=… in a shell) named like a credential or address.
  const variable =
    /(?:\$\{?|process\.env\.|process\.env\[["']|\benv\.|^|\s)([A-Z][A-Z0-9]*_[A-Z0-9_]*)(?=\}|\b)(?!\s*\()/gm;
  for (const match of text.matchAll(variable)) {
    const name = match[1] ?? "";
    // Read ($X, process.env.X), or set at the start of a shell word (X=…); a word in prose is neither.
    const read = match[0].slice(0, match[0].length - name.length).trim() !== "";
    const isVariable = read || text.startsWith("=", match.index + match[0].length);
    if (!isVariable || name.startsWith("IDV_") || FOREIGN.has(name)) continue;
    if (/(KEY|SECRET|TOKEN|URL|PASSWORD)$/.test(name)) found.add(name);
  }
  return [...found].sort();
}

/** Files under `dir` (relative to the root) whose names end with one of `ends`, skipping builds. */
function files(dir: string, ends: string[]): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(fromRoot(dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!["node_modules", "dist", "build", "artifacts", ".git", "generated"].includes(entry.name))
        out.push(...files(path, ends));
    } else if (ends.some((e) => entry.name.endsWith(e))) out.push(path);
  }
  return out;
}

describe("one vocabulary for the address and the credentials", () => {
  it("finds the names it must (the check can fail)", () => {
    expect(strangers("IDV_SECRET=… npx idv-conformance probe")).toEqual(["IDV_SECRET"]);
    expect(strangers('process.env.SANDBOX_URL; curl -H "x: $API_SECRET"; BASE_URL=x run')).toEqual([
      "API_SECRET",
      "BASE_URL",
      "SANDBOX_URL",
    ]);
    expect(strangers("IDV_KEY IDV_URL ${WEBHOOK_TOKEN}")).toEqual(["IDV_KEY", "IDV_URL", "WEBHOOK_TOKEN"]);
    expect(strangers("IDV_API_SECRET=… $IDV_BASE_URL process.env.REDIS_URL SVC_SIGNATURE=$(x)")).toEqual([]);
    expect(strangers("the header is named after SVC_API_KEY in prose")).toEqual([]);
  });

  it("in every document and example", () => {
    const documents = [
      ...files(".", [".md"]).filter((f) => !f.startsWith("test/")),
      ...files("examples", [".ts"]),
      ...files("docs/site", [".html", ".js"]),
    ]
      .map((f) => relative(fromRoot(), fromRoot(f)))
      .filter((f) => !QUOTED.has(f));
    expect(documents).toContain("docs/package/README.md");
    expect(documents).toContain("docs/testing-your-integration.md");
    const found = documents
      .map((f) => [f, strangers(readFileSync(fromRoot(f), "utf8"))] as const)
      .filter(([, names]) => names.length > 0);
    expect(found).toEqual([]);
  });

  it("in the site's code samples", () => {
    const document = JSON.parse(readFileSync(fromRoot("generated/openapi.json"), "utf8"));
    const samples = operationSamples(document);
    expect(samples.length).toBeGreaterThan(10);
    const found = samples
      .map((s) => [s.operationId, strangers(`${s.curl}\n${s.typescript}`)] as const)
      .filter(([, names]) => names.length > 0);
    expect(found).toEqual([]);
    expect(samples.some((s) => s.curl.includes("$IDV_API_SECRET"))).toBe(true);
  });

  it("in every --help text", async () => {
    const helps = await Promise.all(
      [[], ["check"], ["webhooks"], ["proxy"], ["probe"], ["receiver"]].map(
        async (verb) => (await runMain([...verb, "--help"])).stdout,
      ),
    );
    const sandbox = spawnSync(process.execPath, ["--import", "tsx", fromRoot("sandbox/cli.ts"), "--help"], {
      cwd: fromRoot(),
      encoding: "utf8",
      timeout: 20_000,
    }).stdout;
    for (const help of [...helps, sandbox]) {
      expect(help).toMatch(/^Usage: /);
      expect(strangers(help)).toEqual([]);
    }
    expect(helps[4]).toContain("IDV_API_KEY and IDV_API_SECRET");
    expect(sandbox).toContain("IDV_API_KEY and IDV_API_SECRET");
  });

  it("in the probe's reproducers", () => {
    const credentials = { apiKey: "k", secret: "s" };
    for (const auth of ["v2", "v4"] as const) {
      const creds = credentialHeaders(auth, credentials, "valid", Buffer.from("{}"));
      const line = curlCommand({
        method: "POST",
        url: "http://127.0.0.1:4010/x",
        headers: creds.curl,
        body: Buffer.from("{}"),
        ...(creds.sign ? { sign: creds.sign } : {}),
      });
      expect(strangers(line)).toEqual([]);
      expect(line).toContain(auth === "v2" ? "$IDV_API_SECRET" : '-hmac "$IDV_API_SECRET"');
    }
  });
});
