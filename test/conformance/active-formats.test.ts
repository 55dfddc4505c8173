// The active tests' reports (probe, receiver) in every format: each carries a failed request's case,
// check, seed and reproducer; SARIF is a valid 2.1.0 log with each result on the contract's own source
// line; GitHub's workflow commands cannot be forged by any text of a result, and its job summary
// renders no markup from it.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { ACTIVE_CHECK_NAMES, ACTIVE_CHECK_RULES } from "../../conformance/probe/active-checks.js";
import { activeJobSummary } from "../../conformance/probe/active-github.js";
import {
  type ActiveReport,
  type ActiveResult,
  RECEIVED_EVENT,
  writeActiveReport,
} from "../../conformance/probe/active-report.js";
import { CHECK_NAMES } from "../../conformance/findings/rules.js";
import { xml } from "../../conformance/findings/shown.js";
import type { ReportFormat } from "../../conformance/findings/reporters.js";
import { fromRoot } from "../../scripts/lib/paths.js";
import { tempDir } from "./support/cli.js";
import { Capture } from "./support/in-process.js";
import { validateSarif } from "./support/sarif-schema.js";

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CURL = [
  `BODY=$'{"reference":"r","date_of_birth":"29/02/2001"}'`,
  `curl -sS -i -X POST 'http://127.0.0.1:4011/api/v4/pep_checks' -H "Svc-API-Key: $IDV_API_KEY" --data-binary "$BODY"`,
].join("\n");

/** A generated request that failed, with the seed that reproduces it. */
const generated: ActiveResult = {
  phase: "generative",
  case: "a valid body, date_of_birth on 29 February of a common year",
  operationId: "createPepCheck",
  method: "POST",
  path: "/api/v4/pep_checks",
  status: 200,
  ms: 12.5,
  ok: false,
  violations: [
    {
      in: "response.body",
      check: "response_body_schema",
      pointer: "/date_of_birth",
      message: 'must match format "date"',
    },
    { in: "response.status", check: "generated_refused", pointer: "", message: "answered 200; expected 422" },
  ],
  warnings: [],
  curl: CURL,
  seed: 4242,
};

/** A receiver's delivery that failed, an awaited event that did not come, a slow acknowledgement. */
const delivery: ActiveResult = {
  phase: "deliveries",
  case: "the Test button's body",
  operationId: "biometricWebhook.test",
  method: "POST",
  path: "events URL",
  status: 400,
  ms: 3,
  ok: false,
  violations: [{ in: "receiver.answer", check: "acknowledged", pointer: "", message: "answered 400" }],
  warnings: [],
  curl: "curl -sS -i -X POST 'http://127.0.0.1:3000/idv/events'",
};
const event: ActiveResult = {
  phase: "stateful",
  case: "pep-check-pdf: created",
  operationId: "sendBiometricEvent",
  method: "POST",
  path: RECEIVED_EVENT,
  status: 0,
  ms: 0,
  ok: false,
  violations: [{ in: "delivery", check: "event_received", pointer: "", message: "no created event arrived" }],
  warnings: [],
};
const slow: ActiveResult = {
  ...delivery,
  case: "example created (created)",
  operationId: "biometricWebhook.created",
  status: 200,
  ok: true,
  violations: [],
  warnings: [
    { in: "receiver.answer", check: "time_to_ack", pointer: "", message: "acknowledged after 1500 ms" },
  ],
};
const passed: ActiveResult = { ...slow, case: "passed", warnings: [] };

const report = (results: ActiveResult[], notes: string[] = ["seed 4242 (run again with --seed 4242)"]) =>
  ({
    title: "idv-conformance probe",
    target: "http://127.0.0.1:4011/",
    results,
    latency: [],
    notes,
  }) satisfies ActiveReport;

/** A report written in a format, as text. */
async function written(format: ReportFormat, r: ActiveReport, stepSummary?: string): Promise<string> {
  const out = new Capture();
  await writeActiveReport(format, r, out, { stepSummary });
  return out.text;
}

/** What the runner does with an escaped value (actions/toolkit's unescape, in reverse order). */
const unescape = (s: string) =>
  s
    .replace(/%2C/g, ",")
    .replace(/%3A/g, ":")
    .replace(/%0A/g, "\n")
    .replace(/%0D/g, "\r")
    .replace(/%25/g, "%");

/** The line of a repository file a SARIF region (or an annotation) names. */
const lineAt = (uri: string, line: number): string =>
  readFileSync(fromRoot(decodeURIComponent(uri)), "utf8").split("\n")[line - 1] ?? "";

describe("every format carries a failed request's case, check, seed and reproducer", () => {
  const all = report([generated, delivery, event, slow, passed]);

  it("text: the seed next to the reproducer", async () => {
    const text = await written("text", all);
    expect(text).toContain(`✗ generative: ${generated.case} (POST /api/v4/pep_checks → 200)`);
    expect(text).toContain("[generated_refused]: answered 200; expected 422");
    expect(text).toMatch(/\n {4}seed: 4242\n {4}reproduce:\n {6}BODY=\$'/);
  });

  it("JSON: the seed as it is", async () => {
    const json = JSON.parse(await written("json", all));
    expect(json.results[0]).toMatchObject({ case: generated.case, seed: 4242, curl: CURL });
    expect(json.results[1].seed).toBeUndefined();
  });

  it("JUnit: the seed in the failure's text, before the reproducer", async () => {
    const junit = await written("junit", all);
    expect(junit).toContain(`name="${xml(`generative: ${generated.case} (POST /api/v4/pep_checks → 200)`)}"`);
    expect(junit).toContain(`type="response_body_schema"`);
    expect(junit).toContain(`Seed: 4242\n\nReproduce:\n${xml(CURL)}</failure>`);
  });

  it("SARIF: in the result's properties and its message", async () => {
    const log = JSON.parse(await written("sarif", all));
    const [first] = log.runs[0].results;
    expect(first.ruleId).toBe("response_body_schema");
    expect(first.properties).toMatchObject({ case: generated.case, seed: 4242, reproduce: CURL });
    expect(first.properties.violations.map((f: { check: string }) => f.check)).toEqual([
      "response_body_schema",
      "generated_refused",
    ]);
    expect(first.message.text).toContain("[generated_refused]: answered 200; expected 422");
    expect(first.message.text).toContain(`seed 4242\nreproduce:\n${CURL}`);
    expect(first.message.markdown).toContain("Seed: `4242`");
    expect(first.message.markdown).toContain(`\`\`\`sh\n${CURL}\n\`\`\``);
  });

  it("GitHub: in the annotation's message", async () => {
    const lines = (await written("github", all)).trimEnd().split("\n");
    const command = lines[0]!;
    expect(command).toMatch(
      /^::error file=openapi\/components\/schemas\/PepCheck\.yaml,line=\d+,col=\d+,title=/,
    );
    expect(command).toContain(",title=Response body schema (response_body_schema)::");
    const message = unescape(command.slice(command.indexOf("::", 2) + 2));
    expect(message).toContain(`generative: ${generated.case}`);
    expect(message).toContain("[generated_refused]");
    expect(message).toContain(`seed 4242\nreproduce:\n${CURL}`);
  });
});

describe("--format sarif", () => {
  it("is a valid SARIF 2.1.0 log: every check a rule, one result per request that failed or warned", async () => {
    const log = JSON.parse(await written("sarif", report([generated, delivery, event, slow, passed])));
    expect(validateSarif(log), JSON.stringify(validateSarif.errors?.slice(0, 3))).toBe(true);
    const run = log.runs[0];
    expect(run.tool.driver.name).toBe("idv-conformance");
    const rules = run.tool.driver.rules;
    expect(rules.map((r: { id: string }) => r.id)).toEqual([...CHECK_NAMES, ...ACTIVE_CHECK_NAMES]);
    for (const id of ACTIVE_CHECK_NAMES) {
      const rule = rules.find((r: { id: string }) => r.id === id);
      expect(rule.fullDescription.text).toBe(ACTIVE_CHECK_RULES[id].description);
      expect(rule.helpUri).toMatch(/docs\/probe\.md#/);
    }
    expect(run.results.map((r: { level: string }) => r.level)).toEqual([
      "error",
      "error",
      "error",
      "warning",
    ]);
    for (const r of run.results) expect(rules[r.ruleIndex].id).toBe(r.ruleId);
    expect(run.invocations).toBeUndefined();
    expect(run.properties.summary).toEqual({ requests: 5, passed: 2, failed: 3, warnings: 1 });
  });

  it("places each result on the line of the contract's source that holds its part", async () => {
    const log = JSON.parse(await written("sarif", report([generated, delivery, event, slow])));
    const [body, test, awaited, created] = log.runs[0].results.map(
      (r: any) => r.locations[0].physicalLocation,
    );
    // The response's member the finding broke, in the schema's own file.
    expect(body.artifactLocation).toEqual({
      uri: "openapi/components/schemas/PepCheck.yaml",
      uriBaseId: "%SRCROOT%",
    });
    expect(lineAt(body.artifactLocation.uri, body.region.startLine).trim()).toMatch(/^date_of_birth:/);
    // A delivery on the message it is an example of; an awaited event on the operation that sends it.
    expect(test.artifactLocation.uri).toBe("asyncapi/messages/biometric-test.yaml");
    expect(test.region).toEqual({ startLine: 1, startColumn: 1 });
    expect(created.artifactLocation.uri).toBe("asyncapi/messages/biometric-created.yaml");
    expect(awaited.artifactLocation.uri).toBe("asyncapi/asyncapi.yaml");
    expect(lineAt(awaited.artifactLocation.uri, awaited.region.startLine).trim()).toBe("sendBiometricEvent:");
    // The other finding's part (the operation, for generated_refused) is a related location.
    const related = log.runs[0].results[0].relatedLocations;
    expect(related[0].properties.jsonPointer).toBe(
      "/paths/~1api~1v4~1pep_checks/post/responses/200/content/application~1json/schema/properties/date_of_birth",
    );
    const operation = related[1].physicalLocation;
    expect(operation.artifactLocation.uri).toBe("openapi/paths/api_v4_pep_checks.yaml");
    expect(lineAt(operation.artifactLocation.uri, operation.region.startLine)).toBe("post:");
  });

  it("places an active check on a member of the answer's body on that member of the documented response", async () => {
    const origin: ActiveResult = {
      ...generated,
      phase: "auth",
      case: "credentials sent from a browser script (Origin header)",
      status: 400,
      violations: [
        {
          in: "response.body",
          check: "credentials_at_risk",
          pointer: "/error_code",
          message: "expected error_code CRED_AT_RISK",
        },
      ],
    };
    const log = JSON.parse(await written("sarif", report([origin])));
    const [location] = log.runs[0].results[0].locations;
    expect(location.logicalLocations[0].fullyQualifiedName).toMatch(
      /^\/paths\/~1api~1v4~1pep_checks\/post\/responses\/400\/content\/.+\/error_code$/,
    );
    const { uri } = location.physicalLocation.artifactLocation;
    expect(uri).toBe("openapi/components/schemas/ServiceError.yaml");
    expect(lineAt(uri, location.physicalLocation.region.startLine).trim()).toMatch(/^error_code:/);
  });

  it("fences a reproducer that holds backticks with a longer fence", async () => {
    const curl = "printf '```'\ncurl -sS 'http://127.0.0.1/````'";
    const log = JSON.parse(await written("sarif", report([{ ...generated, curl }])));
    expect(log.runs[0].results[0].message.markdown).toContain(`\`\`\`\`\`sh\n${curl}\n\`\`\`\`\``);
  });
});

/** Text from any character, markup and the runner's own syntax weighted in. */
const hostile = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc
    .array(
      fc.constantFrom(
        "::error ::",
        "\n",
        "\r",
        "%0A",
        "%",
        ",",
        ":",
        "##[",
        "`",
        "[x](y)",
        "<b>",
        "|",
        "\u2028",
      ),
      {
        maxLength: 8,
      },
    )
    .map((parts) => parts.join("")),
);

/** Text that holds no control but CR and LF (nor a line separator, a bidi control or a lone surrogate). */
const plain = (s: string) =>
  !/[^\r\n\P{Cc}]|[\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\uD800-\uDFFF]/u.test(s);

describe("--format github", () => {
  it("cannot be forged: whatever a result's texts hold, one command per line, then the totals", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            phase: hostile,
            case: hostile,
            operationId: fc.oneof(fc.constant("createPepCheck"), hostile),
            path: fc.oneof(fc.constant("/api/v4/pep_checks"), hostile),
            status: fc.integer({ min: 0, max: 999 }),
            message: hostile,
            pointer: hostile,
            curl: hostile,
            ok: fc.boolean(),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        async (rows) => {
          const results: ActiveResult[] = rows.map((row) => {
            const finding = {
              in: "response.status",
              check: "answered" as const,
              pointer: row.pointer,
              message: row.message,
            };
            return {
              phase: row.phase,
              case: row.case,
              operationId: row.operationId,
              method: "POST",
              path: row.path,
              status: row.status,
              ms: 1,
              ok: row.ok,
              violations: row.ok ? [] : [finding],
              warnings: row.ok ? [finding] : [],
              curl: row.curl || "curl",
              seed: row.status,
            };
          });
          const lines = (await written("github", report(results))).split("\n");
          expect(lines.pop()).toBe("");
          expect(lines).toHaveLength(results.length + 1);
          results.forEach((r, i) => {
            const line = lines[i]!;
            const head =
              /^::(error|warning) ((?:file=[^,:%\s]+,line=\d+,col=\d+,)?title=[^,:\p{Cc}]*)::/u.exec(line);
            expect(head, line).not.toBeNull();
            expect(head![1]).toBe(r.ok ? "warning" : "error");
            expect(line).not.toMatch(/[\p{Cc}\u2028\u2029]/u);
            // The runner reads the message back as written: the case and the seed, every time.
            const message = unescape(line.slice(head![0].length));
            if (plain(r.phase) && plain(r.case))
              expect(message.startsWith(`${r.phase}: ${r.case} (`)).toBe(true);
            expect(message).toContain(`\nseed ${r.seed}\nreproduce:\n`);
          });
          expect(lines.at(-1)).toMatch(/^idv-conformance probe: \d+ requests?: /);
        },
      ),
      { numRuns: 150, seed: 46 },
    );
  });

  it("appends a job summary to $GITHUB_STEP_SUMMARY, no markup rendered from a result's words", async () => {
    const file = join(dir, "summary.md");
    const evil = { ...generated, phase: "<img src=x>|[link](https://evil.example)", operationId: "`op`|x" };
    await written("github", report([evil, delivery, slow], ['--operations names "<b>x</b>"']), file);
    const markdown = readFileSync(file, "utf8");
    expect(markdown).toMatch(/^## idv-conformance probe: failed\n/);
    expect(markdown).toContain("| 3 | 1 | 2 | 1 |");
    expect(markdown).toContain("| `acknowledged` | 1 | 0 |");
    expect(markdown).toContain("| `time_to_ack` | 0 | 1 |");
    // Every character that could open markup is escaped: no tag, no link, no extra cell.
    expect(markdown).not.toMatch(/(?<!\\)[<[]/);
    expect(markdown).toContain("\\<img src=x\\>\\|\\[link\\]");
    expect(activeJobSummary(report([passed]))).toMatch(/^## idv-conformance probe: passed\n/);
  });

  it("a summary file that cannot be written is an error, and no commands", async () => {
    const out = new Capture();
    await expect(
      writeActiveReport("github", report([generated]), out, { stepSummary: join(dir, "none", "x.md") }),
    ).rejects.toThrow(/GITHUB_STEP_SUMMARY/);
    expect(out.text).toBe("");
  });
});
