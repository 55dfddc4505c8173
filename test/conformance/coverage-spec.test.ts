// A --spec run's coverage report counts against the document its checker read, and the model and
// schema nodes its hooks built: the contract is read once a run, not once more for the report.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import * as loadContract from "../../conformance/checks/load-contract.js";
import { reportOf } from "../../conformance/coverage/coverage-run.js";
import { SeenLocations } from "../../conformance/coverage/seen.js";
import { loadOpenApi } from "../support/contract.js";
import { tempDir, writeNdjson } from "./support/cli.js";
import { examples } from "./support/exchanges.js";
import { runMain } from "./support/in-process.js";

vi.mock("../../conformance/checks/load-contract.js", async (original) => {
  const real = await original<typeof import("../../conformance/checks/load-contract.js")>();
  return { ...real, readContract: vi.fn(real.readContract) };
});

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("coverage with --spec", () => {
  it("reads the contract once, and reports as a run on the bundled contract does", async () => {
    const spec = join(dir, "contract.json");
    writeFileSync(spec, JSON.stringify(loadOpenApi()));
    const file = writeNdjson(
      dir,
      "all.ndjson",
      examples.map((e) => e.exchange),
    );
    const [bundled, given] = [join(dir, "bundled.json"), join(dir, "given.json")];
    expect((await runMain(["check", file, "--coverage", bundled])).status).toBe(0);
    const read = vi.mocked(loadContract.readContract);
    read.mockClear();
    expect((await runMain(["check", file, "--spec", spec, "--coverage", given])).status).toBe(0);
    expect(read.mock.calls).toEqual([[spec]]);
    expect(readFileSync(given, "utf8")).toBe(readFileSync(bundled, "utf8"));
  });

  it("makes a report of the document given, without reading --spec", async () => {
    const document = loadOpenApi();
    const missing = join(dir, "not-there.json");
    const report = await reportOf({ command: "check", spec: missing }, new SeenLocations(), document);
    expect(report.contract.title).toBe(document.info.title);
    expect(report.kinds.operations?.total).toBeGreaterThan(0);
    await expect(reportOf({ command: "check", spec: missing }, new SeenLocations())).rejects.toThrow(
      /cannot be read/,
    );
  });
});
