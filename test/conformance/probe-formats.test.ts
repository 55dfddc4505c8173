// `probe --format sarif|github` and `receiver --format sarif|github`, run against the sandbox behind a
// deployment with one fault (and a receiver with one): the failed requests are SARIF results on the
// contract's own source lines (a line that really holds the operation, or the part of it a finding
// broke) and GitHub annotations there, each with its case, check and reproducer.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { physicalPointer, loadSourceTables, sourceLine } from "../../conformance/findings/contract-source.js";
import type { RunningSandbox } from "../../sandbox/start.js";
import { fromRoot } from "../../scripts/lib/paths.js";
import { loadAsyncApi, loadOpenApi, type Json } from "../support/contract.js";
import { startBrokenServer, type ServerFault } from "./fixtures/probe/broken-servers.js";
import { startFixtureReceiver, TOKEN, WORKFLOW_PATH } from "./fixtures/probe/receivers.js";
import { CREDENTIALS, probeWith, startProbedSandbox } from "./fixtures/probe/probe-run.js";
import { runInProcess } from "./fixtures/probe/run-cli.js";
import { tempDir } from "./support/cli.js";
import { validateSarif } from "./support/sarif-schema.js";

const openapi = loadOpenApi();
const asyncapi = loadAsyncApi();

const dir = tempDir();
let sandbox: RunningSandbox;
beforeAll(async () => {
  // A job summary only where a test asks for one, never the CI job's own.
  vi.stubEnv("GITHUB_STEP_SUMMARY", "");
  sandbox = await startProbedSandbox();
});
afterAll(async () => {
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
  await sandbox.close();
});

/** The probe's report in a format, against the sandbox behind a deployment with one fault. */
async function probeOf(fault: ServerFault, format: string, extra: string[]) {
  const broken = await startBrokenServer(fault, { url: sandbox.url, ...CREDENTIALS });
  try {
    const run = await probeWith(broken.url, ["--seed", "46", "--format", format, ...extra]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(1);
    return run.stdout;
  } finally {
    await broken.close();
  }
}

/** The text of a repository file's line. */
const lineOf = (uri: string, line: number): string =>
  readFileSync(fromRoot(decodeURIComponent(uri)), "utf8").split("\n")[line - 1] ?? "";

/** The key a source pointer's last token names. */
const lastKey = (pointer: string) =>
  pointer
    .slice(pointer.lastIndexOf("/") + 1)
    .replace(/~1/g, "/")
    .replace(/~0/g, "~");

/**
 * GitHub's rules and ours: a physical location in the contract's sources, a region whose line holds
 * the part the logical location names (its key, or the first line of the part's own file).
 */
async function expectOnItsLine(result: any, kind: "openapi" | "asyncapi", document: Json) {
  const [location] = result.locations;
  const physical = location.physicalLocation;
  expect(physical.artifactLocation.uriBaseId).toBe("%SRCROOT%");
  expect(physical.artifactLocation.uri).toMatch(new RegExp(`^${kind}/.+\\.yaml$`));
  expect(existsSync(fromRoot(decodeURIComponent(physical.artifactLocation.uri)))).toBe(true);
  const pointer: string = location.logicalLocations[0].fullyQualifiedName;
  const table = (await loadSourceTables())[kind]!;
  const source = sourceLine(table, document, pointer)!;
  expect(physicalPointer(document, pointer).startsWith(source.pointer)).toBe(true);
  const text = lineOf(physical.artifactLocation.uri, physical.region.startLine);
  const atKey = text.slice(physical.region.startColumn - 1).startsWith(`${lastKey(source.pointer)}:`);
  const atFile = physical.region.startLine === 1 && physical.region.startColumn === 1;
  expect(atKey || atFile, `${pointer}: ${text}`).toBe(true);
  return { pointer, text };
}

describe("probe --format sarif", () => {
  it("is a valid log whose every result is on the operation's own line, or its broken part's", async () => {
    const log = JSON.parse(await probeOf("refuses-example", "sarif", ["--phases", "examples,auth"]));
    expect(validateSarif(log), JSON.stringify(validateSarif.errors?.slice(0, 3))).toBe(true);
    const results = log.runs[0].results;
    expect(results.length).toBeGreaterThan(3);
    expect(log.runs[0].invocations).toBeUndefined();
    const checks = new Set(results.map((r: any) => r.ruleId));
    expect(checks).toContain("example_accepted");
    for (const result of results) {
      const { pointer, text } = await expectOnItsLine(result, "openapi", openapi);
      const { path, method } = result.properties;
      const operation = `/paths/${path.replace(/~/g, "~0").replace(/\//g, "~1")}/${method.toLowerCase()}`;
      expect(pointer.startsWith(operation), pointer).toBe(true);
      // A check on the status the operation gave: on the operation's own line (`post:`).
      if (result.properties.part === "response.status") {
        expect(pointer).toBe(operation);
        expect(text.trim()).toBe(`${method.toLowerCase()}:`);
      }
      expect(result.properties.case).toBeTruthy();
      expect(result.properties.reproduce).toMatch(/^curl -sS -i -X |\ncurl -sS -i -X /);
      expect(result.message.text).toContain(`${result.properties.phase}: ${result.properties.case}`);
      expect(result.message.markdown).toContain("```sh\n");
    }
  }, 60_000);

  it("places a finding on the answer's body on the documented response's member", async () => {
    const log = JSON.parse(
      await probeOf("incomplete-record", "sarif", ["--phases", "examples", "--operations", "createPepCheck"]),
    );
    expect(validateSarif(log)).toBe(true);
    const result = log.runs[0].results.find(
      (r: any) => r.ruleId === "response_body_schema" && r.properties.pointer === "/id",
    );
    expect(result).toBeDefined();
    const { text } = await expectOnItsLine(result, "openapi", openapi);
    expect(result.locations[0].physicalLocation.artifactLocation.uri).toBe(
      "openapi/components/schemas/PepCheck.yaml",
    );
    expect(text.trim()).toMatch(/^id:/);
  }, 60_000);
});

describe("probe --format github", () => {
  it("annotates the operation's line with the case, the check and the reproducer, and writes the job summary", async () => {
    const summary = join(dir, "summary.md");
    vi.stubEnv("GITHUB_STEP_SUMMARY", summary);
    const output = await probeOf("refuses-example", "github", [
      "--phases",
      "examples",
      "--operations",
      "createPepCheck",
    ]);
    const lines = output.trimEnd().split("\n");
    expect(lines.at(-1)).toMatch(/^idv-conformance probe: 1 request: 0 passed, 1 failed, 0 warnings$/);
    const [command] = lines;
    const head =
      /^::error file=([^,]+),line=(\d+),col=(\d+),title=Example accepted \(example_accepted\)::/.exec(
        command!,
      );
    expect(head, command).not.toBeNull();
    expect(head![1]).toBe("openapi/paths/api_v4_pep_checks.yaml");
    expect(lineOf(head![1]!, Number(head![2]))).toBe("post:");
    const message = command!.slice(head![0].length).replace(/%0A/g, "\n").replace(/%25/g, "%");
    expect(message).toMatch(/^examples: example \S+ \(POST \/api\/v4\/pep_checks → 422\): /);
    expect(message).toContain("[example_accepted]: answered 422; expected 2xx\nreproduce:\n");
    expect(message).toContain("curl -sS -i -X POST");
    expect(message).not.toContain(CREDENTIALS.secret);
    vi.stubEnv("GITHUB_STEP_SUMMARY", "");
    const markdown = readFileSync(summary, "utf8");
    expect(markdown).toMatch(/^## idv-conformance probe: failed\n/);
    expect(markdown).toContain("| `example_accepted` | 1 | 0 |");
  }, 60_000);
});

describe("receiver --format sarif|github", () => {
  it("places a failed delivery on the AsyncAPI message it is an example of", async () => {
    const receiver = await startFixtureReceiver("refuses-test-body");
    try {
      const args = [
        "receiver",
        `${receiver.url}/idv/events`,
        "--auth",
        `bearer:${TOKEN}`,
        "--workflow-url",
        `${receiver.url}${WORKFLOW_PATH}`,
        "--format",
      ];
      const sarif = await runInProcess([...args, "sarif"]);
      expect(sarif.status).toBe(1);
      const log = JSON.parse(sarif.stdout);
      expect(validateSarif(log), JSON.stringify(validateSarif.errors?.slice(0, 3))).toBe(true);
      const [result, ...others] = log.runs[0].results;
      expect(others).toEqual([]);
      expect(result.ruleId).toBe("acknowledged");
      expect(result.properties.case).toBe("the Test button's body");
      expect(result.properties.reproduce).toContain("${IDV_RECEIVER_AUTH#*:}");
      await expectOnItsLine(result, "asyncapi", asyncapi);
      expect(result.locations[0].physicalLocation.artifactLocation.uri).toBe(
        "asyncapi/messages/biometric-test.yaml",
      );
      expect(result.locations[0].logicalLocations[0].fullyQualifiedName).toBe(
        "/channels/biometricWebhook/messages/test",
      );
      const github = await runInProcess([...args, "github"]);
      expect(github.status).toBe(1);
      expect(github.stdout).toMatch(
        /^::error file=asyncapi\/messages\/biometric-test\.yaml,line=1,col=1,title=Delivery acknowledged \(acknowledged\)::deliveries: the Test button's body \(POST events URL → 400\): /,
      );
      expect(github.stdout).not.toContain(TOKEN);
    } finally {
      await receiver.close();
    }
  }, 60_000);
});
