// `--format sarif --spec FILE`: the report points into the contract the checker read, without reading
// and parsing the file a second time (a large contract is read once a run).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as fs from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";
import { loadAsyncApi, loadOpenApi } from "../support/contract.js";
import { runMain } from "./support/in-process.js";

vi.mock("node:fs/promises", async (original) => {
  const module = await original<typeof import("node:fs/promises")>();
  return { ...module, readFile: vi.fn(module.readFile) };
});

const dir = mkdtempSync(join(tmpdir(), "idv-sarif-once-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** How many times `file` was read since the last call. */
function readsOf(file: string): number {
  const reads = vi.mocked(fs.readFile).mock.calls.filter(([path]) => path === file).length;
  vi.mocked(fs.readFile).mockClear();
  return reads;
}

describe("a SARIF report of a --spec contract", () => {
  it("reads an OpenAPI --spec once", async () => {
    const spec = join(dir, "openapi.json");
    writeFileSync(spec, JSON.stringify(loadOpenApi()));
    readsOf(spec);
    const traffic = fromRoot("test/conformance/fixtures/conforming.har");
    const { status, stdout } = await runMain(["check", traffic, "--spec", spec, "--format", "sarif"]);
    expect(status).toBe(0);
    expect(JSON.parse(stdout).version).toBe("2.1.0");
    expect(readsOf(spec)).toBe(1);
  });

  it("reads an AsyncAPI --spec once", async () => {
    const spec = join(dir, "asyncapi.json");
    writeFileSync(spec, JSON.stringify(loadAsyncApi()));
    const deliveries = join(dir, "deliveries.ndjson");
    writeFileSync(deliveries, "");
    readsOf(spec);
    const { stdout } = await runMain(["webhooks", deliveries, "--spec", spec, "--format", "sarif"]);
    expect(JSON.parse(stdout).version).toBe("2.1.0");
    expect(readsOf(spec)).toBe(1);
  });
});
