/**
 * The official AsyncAPI CLI (`asyncapi validate`) and Spectral's AsyncAPI rules judge the bundle:
 * zero errors, zero warnings. The CLI needs Node.js 24, so it runs on the Node 24 binary that
 * test:node-lines caches; both tools are pinned by test/asyncapi/cli/package-lock.json and installed
 * on first use into that cache. A missing Node 24 or a failed install fails the test: nothing is
 * skipped.
 *
 * The CLI records usage metrics unless its config file says `analyticsEnabled: "false"` (or CI is
 * "true"): that file is written in a fresh HOME before the first command, and every run is
 * offline-guarded (a connection attempt fails the test).
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";
import { nodeBinary, pinnedTools } from "../support/node-binary.js";
import { type PinnedRun, runPinned } from "../support/pinned-run.js";

const NODE_24 = "24.21.0";
const INSTALL_TIMEOUT = 900_000;

interface Diagnostic {
  code: string;
  message: string;
  severity: number;
  path: (string | number)[];
}
// Spectral's severities: 0 error, 1 warning, 2 information, 3 hint.
const SEVERITY = ["error", "warning", "information", "hint"];
const errorsAndWarnings = (diagnostics: Diagnostic[]): string[] =>
  diagnostics
    .filter((d) => d.severity <= 1)
    .map((d) => `${SEVERITY[d.severity]} ${d.code} at ${d.path.join(".")}: ${d.message}`);

let node: string;
let tools: string;
let home: string;
let analyticsFile: string;

beforeAll(() => {
  node = nodeBinary(NODE_24);
  tools = pinnedTools(fromRoot("test/asyncapi/cli"), "asyncapi-cli", node);
  // Written before the CLI's first command: with it, the CLI's recorder is a no-op sink.
  home = mkdtempSync(join(tmpdir(), "idv-asyncapi-home-"));
  analyticsFile = join(home, ".asyncapi-analytics");
  writeFileSync(
    analyticsFile,
    JSON.stringify({ analyticsEnabled: "false", infoMessageShown: "true", userID: "not-recorded" }),
  );
}, INSTALL_TIMEOUT);

const asyncapi = (args: string[]): PinnedRun =>
  runPinned(node, join(tools, "node_modules/@asyncapi/cli/bin/run_bin"), args, {
    home,
    env: {
      ASYNCAPI_METRICS_CONFIG_PATH: analyticsFile,
      // oclif's update check would ask the registry for the newest version in the background.
      ASYNCAPI_SKIP_NEW_VERSION_CHECK: "true",
      // The CLI loads node-config, which warns when the config folder it looks for is absent.
      SUPPRESS_NO_CONFIG_WARNING: "1",
      NODE_CONFIG_STRICT_MODE: "0",
    },
  });

/** `asyncapi validate` with JSON diagnostics: its exit status and what it found. */
function validate(file: string): { run: PinnedRun; diagnostics: Diagnostic[] } {
  const run = asyncapi(["validate", file, "--diagnostics-format", "json", "--fail-severity", "warn"]);
  const json = /\[\s*(?:\{[\s\S]*\})?\s*\]\s*$/.exec(run.stdout);
  return { run, diagnostics: json ? (JSON.parse(json[0]) as Diagnostic[]) : [] };
}

/** Spectral's own AsyncAPI ruleset (`spectral:asyncapi`, test/asyncapi/cli/spectral-ruleset.yaml) on a file. */
function spectral(file: string): { run: PinnedRun; diagnostics: Diagnostic[] } {
  const out = join(mkdtempSync(join(tmpdir(), "idv-spectral-")), "report.json");
  const run = runPinned(node, join(tools, "node_modules/@stoplight/spectral-cli/dist/index.js"), [
    "lint",
    file,
    "--ruleset",
    fromRoot("test/asyncapi/cli/spectral-ruleset.yaml"),
    "--format",
    "json",
    "--output",
    out,
    "--fail-severity",
    "warn",
  ]);
  let diagnostics: Diagnostic[] = [];
  try {
    diagnostics = JSON.parse(readFileSync(out, "utf8")) as Diagnostic[];
  } catch {
    // No report: the run's status and output say why.
  }
  return { run, diagnostics };
}

describe("the official AsyncAPI CLI", () => {
  it(`runs on Node ${NODE_24}, the line it requires`, () => {
    const run = asyncapi(["--version"]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/@asyncapi\/cli\/6\.\d+\.\d+ .*node-v24\./);
  });

  for (const file of ["generated/asyncapi.json", "generated/asyncapi.yaml"])
    it(`accepts ${file} with zero errors and zero warnings`, () => {
      const { run, diagnostics } = validate(file);
      expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(run.stdout).toMatch(/is valid/);
      expect(errorsAndWarnings(diagnostics)).toEqual([]);
      expect(run.network).toEqual([]);
    });

  it("fails a document with an error, so a pass means something", () => {
    const dir = mkdtempSync(join(tmpdir(), "idv-asyncapi-bad-"));
    const bad = JSON.parse(readFileSync(fromRoot("generated/asyncapi.json"), "utf8")) as {
      info: Record<string, unknown>;
    };
    delete bad.info.version;
    writeFileSync(join(dir, "asyncapi.json"), JSON.stringify(bad));
    const { run } = validate(join(dir, "asyncapi.json"));
    expect(run.status).toBe(1);
    expect(`${run.stdout}${run.stderr}`).toMatch(/version/);
  });

  it("records nothing and sends nothing: analytics stay off, no connection is attempted", () => {
    validate("generated/asyncapi.json");
    const config = JSON.parse(readFileSync(analyticsFile, "utf8")) as Record<string, string>;
    expect(config.analyticsEnabled).toBe("false");
    // The CLI's own gate, read from the installed source: a version that changes how analytics are
    // switched off fails here, before anyone relies on this file again.
    const base = readFileSync(
      join(tools, "node_modules/@asyncapi/cli/lib/apps/cli/internal/base.js"),
      "utf8",
    );
    expect(base).toContain("process.env.ASYNCAPI_METRICS_CONFIG_PATH");
    expect(base).toMatch(
      /analyticsConfigFileContent\.analyticsEnabled !== 'false' &&\s*process\.env\.CI !== 'true'/,
    );
    expect(base).toMatch(/let sink = new DiscardSink\(\);/);
  });

  it("is offline-guarded: a connection attempt is refused and recorded", () => {
    const dir = mkdtempSync(join(tmpdir(), "idv-guard-"));
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "phone-home.cjs"),
      'require("node:net").connect(443, "192.0.2.1").on("error", () => {});\n',
    );
    const run = runPinned(node, join(dir, "phone-home.cjs"), []);
    expect(run.status).not.toBe(0);
    expect(run.network).toEqual([expect.stringMatching(/ 192\.0\.2\.1$/)]);
  });
});

describe("Spectral's AsyncAPI rules", () => {
  for (const file of ["generated/asyncapi.json", "generated/asyncapi.yaml"])
    it(`find no error and no warning in ${file}`, () => {
      const { run, diagnostics } = spectral(file);
      expect(errorsAndWarnings(diagnostics)).toEqual([]);
      expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(run.network).toEqual([]);
    });

  it("report a headers schema that is not an object", () => {
    const dir = mkdtempSync(join(tmpdir(), "idv-spectral-bad-"));
    const bad = JSON.parse(readFileSync(fromRoot("generated/asyncapi.json"), "utf8")) as {
      channels: { workflowCase: { messages: { caseCompleted: { headers: Record<string, unknown> } } } };
    };
    const headers = bad.channels.workflowCase.messages.caseCompleted.headers;
    expect(headers.type).toBe("object");
    delete headers.type;
    writeFileSync(join(dir, "asyncapi.json"), JSON.stringify(bad));
    const { run, diagnostics } = spectral(join(dir, "asyncapi.json"));
    expect(run.status).not.toBe(0);
    expect(diagnostics.map((d) => d.code)).toContain("asyncapi-3-headers-schema-type-object");
  });
});
