// docs/sandbox.md says what the code does: its magic-values table and flags are the code's.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";
import { FLAGS } from "../../sandbox/cli-args.js";
import { BIOMETRIC_MAGIC } from "../../sandbox/products/magic.js";
import { BACKOFF_BASE_MS, backoff, MAX_RETRIES } from "../../sandbox/deliveries/queue.js";

const docs = readFileSync(fromRoot("docs/sandbox.md"), "utf8");

describe("docs/sandbox.md", () => {
  it("lists every biometric magic value, and no other", () => {
    const rows = [...docs.matchAll(/^\| `(sandbox-[a-z-]+)` \| biometric /gm)].map((m) => m[1]);
    expect(rows.sort()).toEqual(BIOMETRIC_MAGIC.map(([word]) => word).sort());
  });

  it("documents every flag of the CLI", () => {
    const flags = Object.keys(FLAGS);
    expect(flags.length).toBeGreaterThan(5);
    for (const flag of flags) expect(docs).toContain(`--${flag}`);
  });

  it("states the retry schedule the queue uses", () => {
    expect(MAX_RETRIES).toBe(8);
    expect(docs).toContain(
      `retried up to ${MAX_RETRIES} times, ${BACKOFF_BASE_MS / 1000} s after the first attempt`,
    );
    const last =
      Array.from({ length: MAX_RETRIES }, (_, i) => backoff(i + 1)).reduce((a, b) => a + b, 0) / 1000;
    expect(`${Math.floor(last / 3600)} h ${Math.floor((last % 3600) / 60)} min ${last % 60} s`).toBe(
      "4 h 57 min 30 s",
    );
    expect(docs).toContain("4 h 57 min 30 s after the first");
  });
});

describe("docs/testing-your-integration.md", () => {
  const guide = readFileSync(fromRoot("docs/testing-your-integration.md"), "utf8");

  it("shows the files the package test runs in a fresh project, as they are", () => {
    for (const file of ["vitest.config.ts", "global-setup.ts", "flow.test.ts"]) {
      const source = readFileSync(fromRoot("test/package/fixtures/integration", `${file}.txt`), "utf8");
      expect(guide, file).toContain(`// ${file}\n${source}`);
    }
  });

  it("names the canned mock's command, and the README points to the guide", () => {
    // Prism named by its package, after installing it: `npx prism` alone offers an unrelated package.
    const install = guide.indexOf("npm install --save-dev @stoplight/prism-cli\n");
    expect(install).toBeGreaterThan(-1);
    expect(
      guide.indexOf("npx @stoplight/prism-cli mock -p 4011 node_modules/idv-contract/generated/openapi.json"),
    ).toBeGreaterThan(install);
    expect(guide).not.toMatch(/^npx prism /m);
    expect(readFileSync(fromRoot("README.md"), "utf8")).toContain("(docs/testing-your-integration.md)");
  });
});
