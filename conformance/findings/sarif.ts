// The SARIF 2.1.0 report: one result per finding, where code review shows them (GitHub code scanning,
// IDEs). Against the bundled contract (or one of the same digest), each result is placed on the
// contract's own source line: the openapi/…yaml (or asyncapi/…yaml) file, line and column of the
// schema member, parameter or response the traffic broke, relative to the repository root
// (%SRCROOT%), with the exchange (the traffic file's line, or the HAR entry as a logical location) as
// a related location. Against any other contract, results point at the traffic file and the contract's
// part is a related location by JSON pointer, as a run's notification says. Results are spooled, so
// memory stays flat whatever the number of entries; like every report, it quotes no recorded value.
import { createHash } from "node:crypto";
import { isAbsolute, sep } from "node:path";
import type { Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import { detailPointer } from "./contract-detail.js";
import { type ContractFile, contractPointer } from "./contract-location.js";
import { type SourceLine, type SourceTable, sourceLine } from "./contract-source.js";
import type { EntryResult, Finding, Summary } from "./findings.js";
import { Spool } from "./report-sink.js";
import { CHECK_NAMES, CHECK_RULES, type CheckRule } from "./rules.js";
import { jsonText, shownText, wellFormed } from "./shown.js";
import { toolVersion } from "./tool-version.js";

/** The schema a SARIF 2.1.0 log names. */
export const SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";

/** The package's home, and where its checks are explained. */
const INFORMATION_URI = "https://github.com/idv-contract/idv-contract#readme";
const CHECKS_URI = "https://github.com/idv-contract/idv-contract/blob/main/docs/conformance.md#checks";

/** Where the results go in the log: a string no other member holds. */
const RESULTS = "\u0000results";

/** The base a bundled contract's path is relative to. */
export const PACKAGE_BASE = "CONTRACT_PACKAGE_ROOT";

/** The base the contract's split sources are relative to: the repository's root, as code scanning names it. */
export const SOURCE_BASE = "%SRCROOT%";

/** The run's base URIs, as every SARIF log of the suite declares them. */
export const ORIGINAL_URI_BASE_IDS = {
  [SOURCE_BASE]: {
    description: {
      text: "The root of the contract's repository, where its split sources (openapi/, asyncapi/) are.",
    },
  },
  [PACKAGE_BASE]: { description: { text: "The root of the installed idv-contract package." } },
};

/** Why results are not on source lines, when they are not. */
const NO_SOURCES = {
  spec: "The contract given by --spec is not the bundled one: results point at the traffic file, and at the contract's part by JSON pointer (relatedLocations), not at source lines.",
  table:
    "The table of the bundled contract's source lines (generated/contract-sources.js) could not be read: results point at the traffic file, and at the contract's part by JSON pointer.",
} as const;

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

/** What a SARIF rule is made from: a check's words (findings/rules.ts, or an active test's table). */
export type RuleWords = Pick<CheckRule, "title" | "description" | "help" | "level">;

/** A check as tool.driver.rules lists it: its name as the id, its words, where it is explained. */
export function sarifRule(id: string, rule: RuleWords, helpUri = CHECKS_URI) {
  return {
    id,
    name: id.replace(/(^|_)([a-z])/g, (_, _sep, c: string) => c.toUpperCase()),
    shortDescription: { text: rule.title },
    fullDescription: { text: rule.description },
    help: { text: rule.help },
    helpUri,
    defaultConfiguration: { level: rule.level },
  };
}

/** The suite's rules, as tool.driver.rules lists them. */
export const checkRules = () => CHECK_NAMES.map((id) => sarifRule(id, CHECK_RULES[id]));

/** Writes a SARIF log: one run, its rules, then every finding of every entry as a result. */
export class SarifReporter {
  private first = true;

  /**
   * `sources`: the source lines of the contract (the bundled one, or one of its digest); without them,
   * results point at the traffic file.
   */
  constructor(
    private readonly spool: Spool,
    private readonly contract: ContractFile & { document?: unknown },
    private readonly sources?: SourceTable,
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
          tool: { driver: sarifDriver(checkRules()) },
          ...this.invocations(),
          originalUriBaseIds: ORIGINAL_URI_BASE_IDS,
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

  /** Why results are not on source lines, as a run's notification, when they are not. */
  private invocations() {
    if (this.sources) return {};
    const text = this.contract.bundled ? NO_SOURCES.table : NO_SOURCES.spec;
    return {
      invocations: [
        { executionSuccessful: true, toolConfigurationNotifications: [{ level: "note", message: { text } }] },
      ],
    };
  }

  private result(r: EntryResult, f: Finding, level: "error" | "warning") {
    const where = r.line === undefined ? `entry ${r.index}` : `line ${r.line}`;
    const exchange = exchangeLocation(r, where);
    const part = this.part(r, f);
    const source = part && this.sources ? sourceLine(this.sources, this.contract.document, part) : undefined;
    const contract = part === undefined ? undefined : this.contractLocation(part);
    // On the source line, the exchange and the bundle's part are related; else the exchange is the place.
    const related = source
      ? [
          { id: 1, ...exchange, message: { text: `the exchange, ${where}` } },
          ...(contract ? [{ id: 2, ...contract }] : []),
        ]
      : contract
        ? [{ id: 1, ...contract }]
        : [];
    return {
      ruleId: f.check,
      ruleIndex: CHECK_NAMES.indexOf(f.check),
      level,
      message: {
        text: shownText(
          `${where}${r.method ? ` ${r.method}` : ""}${r.path ? ` ${r.path}` : ""}: ${f.in} ${f.pointer || "/"}: ${f.message}`,
        ),
      },
      locations: [source ? sourceLocation(source, part ?? "") : exchange],
      ...(related.length > 0 ? { relatedLocations: related } : {}),
      partialFingerprints: {
        "idvFinding/v1": fingerprint([r.file ?? "-", where, f.check, f.in, f.pointer]),
      },
      properties: { entry: r.index, part: f.in, pointer: f.pointer, operationId: r.operationId },
    };
  }

  /** The contract part a finding broke, as a JSON pointer into the contract (undefined: none). */
  private part(r: EntryResult, f: Finding): string | undefined {
    const { kind, document } = this.contract;
    const pointer = contractPointer(kind, r, f, document);
    if (pointer === undefined || document === undefined) return pointer;
    return detailPointer(kind, document, pointer, r, f);
  }

  /** The contract's part in the contract file itself, by JSON pointer. */
  private contractLocation(pointer: string) {
    return contractPartLocation(this.contract, pointer);
  }
}

/** A contract's part in the contract file itself (the bundle, or the --spec file), by JSON pointer. */
export function contractPartLocation(contract: ContractFile, pointer: string) {
  return {
    physicalLocation: {
      artifactLocation: contract.bundled
        ? { uri: contract.uri, uriBaseId: PACKAGE_BASE }
        : { uri: fileUri(contract.uri) },
    },
    logicalLocations: [{ fullyQualifiedName: pointer || "/", kind: "object" }],
    message: { text: `the contract at ${pointer || "/"}` },
    properties: { jsonPointer: pointer },
  };
}

/** The tool, as tool.driver names it: its version, where it is explained, its rules. */
export function sarifDriver(rules: ReturnType<typeof sarifRule>[]) {
  const version = toolVersion();
  return {
    name: "idv-conformance",
    ...(version === undefined ? {} : { version, semanticVersion: version }),
    informationUri: INFORMATION_URI,
    rules,
  };
}

/** Where an exchange is: the traffic file's line (NDJSON), or the HAR entry as a logical location. */
function exchangeLocation(r: EntryResult, where: string) {
  const uri = fileUri(r.file);
  return {
    ...(uri === undefined
      ? {}
      : {
          physicalLocation: {
            artifactLocation: { uri },
            ...(r.line === undefined ? {} : { region: { startLine: r.line } }),
          },
        }),
    logicalLocations: [
      {
        name: where,
        fullyQualifiedName: r.line === undefined ? `log.entries[${r.index}]` : `line ${r.line}`,
        kind: "element",
      },
    ],
  };
}

/** A source line of the contract, relative to the repository root, with the part's pointer. */
export function sourceLocation(source: SourceLine, pointer: string) {
  return {
    physicalLocation: {
      artifactLocation: { uri: fileUri(source.uri) as string, uriBaseId: SOURCE_BASE },
      region: { startLine: source.line, startColumn: source.column },
    },
    logicalLocations: [{ fullyQualifiedName: pointer || "/", kind: "object" }],
  };
}

/** A stable digest of where a finding is, so code scanning tracks it from run to run. */
export const fingerprint = (parts: string[]): string =>
  createHash("sha256").update(parts.join("\u0000")).digest("hex").slice(0, 32);
