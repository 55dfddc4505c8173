// The SARIF 2.1.0 report: one result per finding, where code review shows them (GitHub code scanning,
// IDEs). Each result points at the traffic file (the NDJSON line, or the HAR entry as a logical
// location) and, as a related location, at the part of the contract it broke. Results are spooled, so
// memory stays flat whatever the number of entries; like every report, it quotes no recorded value.
import { createHash } from "node:crypto";
import { isAbsolute, sep } from "node:path";
import type { Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import { type ContractFile, contractPointer } from "./contract-location.js";
import type { EntryResult, Finding, Summary } from "./findings.js";
import { Spool } from "./report-sink.js";
import { CHECK_NAMES, CHECK_RULES } from "./rules.js";
import { jsonText, shownText, wellFormed } from "./shown.js";

/** The schema a SARIF 2.1.0 log names. */
export const SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";

/** The package's home, and where its checks are explained. */
const INFORMATION_URI = "https://github.com/idv-contract/idv-contract#readme";
const CHECKS_URI = "https://github.com/idv-contract/idv-contract/blob/main/docs/conformance.md#checks";

/** Where the results go in the log: a string no other member holds. */
const RESULTS = "\u0000results";

/** The base a bundled contract's path is relative to. */
const PACKAGE_BASE = "CONTRACT_PACKAGE_ROOT";

/**
 * A file name as given on the command line, as a URI reference: relative names stay relative (to the
 * working directory, where code scanning resolves them against the repository), each segment
 * percent-encoded; absolute ones become file URLs; standard input has none.
 */
export function fileUri(file: string | undefined): string | undefined {
  if (file === undefined || file === "-") return undefined;
  // encodeURIComponent throws on a lone surrogate; the name is shown as a UTF-8 encoder writes it.
  const name = wellFormed(file);
  if (isAbsolute(name)) return pathToFileURL(name).href;
  return name
    .split(sep === "\\" ? /[\\/]/ : "/")
    .map(encodeURIComponent)
    .join("/");
}

/** The rules, as tool.driver.rules lists them. */
function rules() {
  return CHECK_NAMES.map((id) => {
    const rule = CHECK_RULES[id];
    return {
      id,
      name: id.replace(/(^|_)([a-z])/g, (_, _sep, c: string) => c.toUpperCase()),
      shortDescription: { text: rule.title },
      fullDescription: { text: rule.description },
      help: { text: rule.help },
      helpUri: CHECKS_URI,
      defaultConfiguration: { level: rule.level },
    };
  });
}

/** Writes a SARIF log: one run, its rules, then every finding of every entry as a result. */
export class SarifReporter {
  private first = true;

  constructor(
    private readonly spool: Spool,
    private readonly contract: ContractFile & { document?: unknown },
  ) {}

  add(r: EntryResult) {
    const results = [
      ...r.violations.map((f) => this.result(r, f, "error")),
      ...r.warnings.map((f) => this.result(r, f, "warning")),
    ];
    if (results.length === 0) return undefined;
    const chunk = `${this.first ? "" : ",\n"}${results.map((x) => `        ${jsonText(x)}`).join(",\n")}`;
    this.first = false;
    return this.spool.append(chunk);
  }

  finish(summary: Summary, out: Writable) {
    const log = {
      $schema: SARIF_SCHEMA,
      version: "2.1.0",
      runs: [
        {
          tool: { driver: { name: "idv-conformance", informationUri: INFORMATION_URI, rules: rules() } },
          originalUriBaseIds: {
            [PACKAGE_BASE]: { description: { text: "The root of the installed idv-contract package." } },
          },
          results: RESULTS,
          properties: { summary },
        },
      ],
    };
    // The log around its results, which are in the spool: split where they go.
    const [head, tail] = jsonText(log, 2).split(JSON.stringify(RESULTS)) as [string, string];
    return this.spool.drainInto(out, `${head}[\n`, `${this.first ? "" : "\n"}      ]${tail}\n`);
  }

  abort() {
    return this.spool.discard();
  }

  private result(r: EntryResult, f: Finding, level: "error" | "warning") {
    const uri = fileUri(r.file);
    const where = r.line === undefined ? `entry ${r.index}` : `line ${r.line}`;
    const entry = {
      name: where,
      fullyQualifiedName: r.line === undefined ? `log.entries[${r.index}]` : `line ${r.line}`,
      kind: "element",
    };
    const related = this.related(r, f);
    return {
      ruleId: f.check,
      ruleIndex: CHECK_NAMES.indexOf(f.check),
      level,
      message: {
        text: shownText(
          `${where}${r.method ? ` ${r.method}` : ""}${r.path ? ` ${r.path}` : ""}: ${f.in} ${f.pointer || "/"}: ${f.message}`,
        ),
      },
      locations: [
        {
          ...(uri === undefined
            ? {}
            : {
                physicalLocation: {
                  artifactLocation: { uri },
                  ...(r.line === undefined ? {} : { region: { startLine: r.line } }),
                },
              }),
          logicalLocations: [entry],
        },
      ],
      ...(related ? { relatedLocations: [related] } : {}),
      partialFingerprints: {
        "idvFinding/v1": fingerprint([r.file ?? "-", where, f.check, f.in, f.pointer]),
      },
      properties: { entry: r.index, part: f.in, pointer: f.pointer, operationId: r.operationId },
    };
  }

  /** The contract location a finding broke, as a related location. */
  private related(r: EntryResult, f: Finding) {
    const pointer = contractPointer(this.contract.kind, r, f, this.contract.document);
    if (pointer === undefined) return undefined;
    return {
      id: 1,
      physicalLocation: {
        artifactLocation: this.contract.bundled
          ? { uri: this.contract.uri, uriBaseId: PACKAGE_BASE }
          : { uri: fileUri(this.contract.uri) },
      },
      logicalLocations: [{ fullyQualifiedName: pointer || "/", kind: "object" }],
      message: { text: `the contract at ${pointer || "/"}` },
      properties: { jsonPointer: pointer },
    };
  }
}

/** A stable digest of where a finding is, so code scanning tracks it from run to run. */
const fingerprint = (parts: string[]): string =>
  createHash("sha256").update(parts.join("\u0000")).digest("hex").slice(0, 32);
