// The SARIF 2.1.0 log of an active test (`probe`, `receiver`), made as `check`'s is (findings/sarif.ts:
// the same tool driver, version and base ids; the suite's checks as the same rules, the active tests'
// own from active-checks.ts). One result per request that failed (level error) or warned (warning),
// its rule the first finding's check, placed on the contract's own source line: a probe request on
// its operation (or the part of it its first finding broke), an awaited event on its AsyncAPI
// operation, a receiver delivery on the message it is an example of. The seed and the reproducer are
// in the result's properties and its message.
import { bundledContractFile } from "../findings/contract-location.js";
import {
  contractPartLocation,
  fingerprint,
  ORIGINAL_URI_BASE_IDS,
  SARIF_SCHEMA,
  sarifDriver,
  sarifRule,
  sourceLocation,
} from "../findings/sarif.js";
import { CHECK_NAMES, CHECK_RULES } from "../findings/rules.js";
import { markdownText, shownText } from "../findings/shown.js";
import { ACTIVE_CHECK_NAMES, ACTIVE_CHECK_RULES } from "./active-checks.js";
import { type ActiveContracts, placeOf } from "./active-place.js";
import {
  type ActiveFinding,
  type ActiveReport,
  type ActiveResult,
  findingLine,
  phaseSummaries,
  resultName,
  summarize,
} from "./active-result.js";

/** Where docs/probe.md explains the active tests' checks. */
const ACTIVE_DOCS = "https://github.com/idv-contract/idv-contract/blob/main/docs/probe.md";
const HELP_URI = {
  probe: `${ACTIVE_DOCS}#what-it-checks`,
  receiver: `${ACTIVE_DOCS}#idv-conformance-receiver`,
} as const;

/** Every rule an active report may name: the suite's checks, then the active tests' own. */
const activeRules = () => [
  ...CHECK_NAMES.map((id) => sarifRule(id, CHECK_RULES[id])),
  ...ACTIVE_CHECK_NAMES.map((id) =>
    sarifRule(id, ACTIVE_CHECK_RULES[id], HELP_URI[ACTIVE_CHECK_RULES[id].test]),
  ),
];

/** Why results are not on source lines, when they are not. */
const NO_SOURCES =
  "The contract the run was made from has no table of source lines (not the bundled one, or generated/contract-sources.js could not be read): results point at the bundled contract by JSON pointer, not at source lines.";

/** A Markdown code fence longer than any run of backticks in `text`, so that nothing in it closes it. */
function fence(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return "`".repeat(Math.max(3, longest + 1));
}

/** The message of a result: the case in words, every finding, the seed and the reproducer. */
function messageOf(r: ActiveResult) {
  const findings = [...r.violations.map(findingLine), ...r.warnings.map((w) => `warning: ${findingLine(w)}`)];
  const seed = r.seed === undefined ? [] : [`seed ${r.seed}`];
  const text = [
    `${resultName(r)}: ${findings.join("; ")}`,
    ...seed,
    ...(r.curl ? ["reproduce:", ...r.curl.split("\n")] : []),
  ];
  const markdown = [
    `**${markdownText(resultName(r))}**`,
    "",
    ...findings.map((f) => `- ${markdownText(f)}`),
    ...(r.seed === undefined ? [] : ["", `Seed: \`${r.seed}\``]),
    ...(r.curl ? ["", "Reproduce:", "", `${fence(r.curl)}sh`, r.curl, fence(r.curl)] : []),
  ];
  return { text: text.map(shownText).join("\n"), markdown: markdown.join("\n") };
}

/** Where a place is: its source line (with the bundle's part related), else the bundle's part alone. */
function locationsOf(contracts: ActiveContracts, r: ActiveResult, lead: ActiveFinding) {
  const place = placeOf(contracts, r, lead);
  const bundle = contractPartLocation(bundledContractFile(place.kind), place.pointer);
  if (!place.source) return { placed: false, locations: [bundle] };
  const related: object[] = [{ id: 1, ...bundle }];
  // Each other finding that broke another part of the contract: its source line, related.
  const seen = new Set([place.source.pointer]);
  for (const f of [...r.violations, ...r.warnings]) {
    const other = placeOf(contracts, r, f);
    if (!other.source || seen.has(other.source.pointer)) continue;
    seen.add(other.source.pointer);
    related.push({
      id: related.length + 1,
      ...sourceLocation(other.source, other.pointer),
      message: { text: shownText(findingLine(f)) },
    });
  }
  return {
    placed: true,
    locations: [sourceLocation(place.source, place.pointer)],
    relatedLocations: related,
  };
}

/**
 * One result of the log (and whether it is on a source line), or undefined for a request that passed
 * without a warning.
 */
function resultOf(
  title: string,
  contracts: ActiveContracts,
  ruleIndex: Map<string, number>,
  r: ActiveResult,
) {
  const lead = r.violations[0] ?? r.warnings[0];
  if (lead === undefined) return undefined;
  const { placed, ...locations } = locationsOf(contracts, r, lead);
  const result = {
    ruleId: lead.check,
    ruleIndex: ruleIndex.get(lead.check) ?? -1,
    level: r.ok ? "warning" : "error",
    message: messageOf(r),
    ...locations,
    partialFingerprints: {
      "idvActive/v1": fingerprint([
        title,
        r.phase,
        r.case,
        r.operationId ?? "",
        r.method,
        r.path,
        lead.check,
      ]),
    },
    properties: {
      phase: r.phase,
      case: r.case,
      operationId: r.operationId,
      method: r.method,
      path: r.path,
      status: r.status,
      part: lead.in,
      pointer: lead.pointer,
      violations: r.violations,
      warnings: r.warnings,
      ...(r.seed === undefined ? {} : { seed: r.seed }),
      ...(r.curl === undefined ? {} : { reproduce: r.curl }),
    },
  };
  return { result, placed };
}

/** The SARIF 2.1.0 log of an active report, placed on the contracts' source lines where they have them. */
export function activeSarif(report: ActiveReport, contracts: ActiveContracts) {
  const rules = activeRules();
  const ruleIndex = new Map(rules.map((rule, i) => [rule.id, i]));
  const made = report.results.flatMap((r) => resultOf(report.title, contracts, ruleIndex, r) ?? []);
  const placed = made.every((m) => m.placed);
  return {
    $schema: SARIF_SCHEMA,
    version: "2.1.0",
    runs: [
      {
        tool: { driver: sarifDriver(rules) },
        ...(placed
          ? {}
          : {
              invocations: [
                {
                  executionSuccessful: true,
                  toolConfigurationNotifications: [{ level: "note", message: { text: NO_SOURCES } }],
                },
              ],
            }),
        originalUriBaseIds: ORIGINAL_URI_BASE_IDS,
        results: made.map((m) => m.result),
        properties: {
          title: report.title,
          target: report.target,
          summary: summarize(report.results),
          phases: phaseSummaries(report.results),
          notes: report.notes,
        },
      },
    ],
  };
}
