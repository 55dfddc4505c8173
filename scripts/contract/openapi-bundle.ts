import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { commentHeader, generatedNotice } from "../lib/generated-header.js";
import { runTool } from "../lib/run-tool.js";

export const OPENAPI_SOURCE = "openapi/openapi.yaml";
const COMMAND = "npm run build:contract";

export interface LintProblem {
  ruleId: string;
  severity: string;
  message: string;
  where: string;
}

export interface LintResult {
  errors: number;
  warnings: number;
  problems: LintProblem[];
}

interface RedoclyProblem {
  ruleId: string;
  severity: string;
  message: string;
  location?: { source?: { ref?: string }; pointer?: string }[];
}

/** Lint a contract with redocly.yaml's rules; every problem, errors and warnings alike. */
export function lintContract(source = OPENAPI_SOURCE): LintResult {
  const { stdout, stderr } = runTool("redocly", ["lint", source, "--format", "json"]);
  let parsed: { totals: { errors: number; warnings: number }; problems: RedoclyProblem[] };
  try {
    parsed = JSON.parse(stdout);
  } catch {
    throw new Error(`redocly lint gave no report for ${source}:\n${stderr.slice(-2000)}`);
  }
  return {
    errors: parsed.totals.errors,
    warnings: parsed.totals.warnings,
    problems: parsed.problems.map((p) => {
      const at = p.location?.[0];
      return {
        ruleId: p.ruleId,
        severity: p.severity,
        message: p.message,
        where: `${at?.source?.ref ?? source}${at?.pointer ?? ""}`,
      };
    }),
  };
}

export interface Bundle {
  document: Record<string, unknown>;
  json: string;
  yaml: string;
}

/**
 * Bundle a split contract (OpenAPI or AsyncAPI: Redocly bundles both) into one document with no
 * external `$ref`, as JSON and YAML text that start with the do-not-edit notice naming `command`.
 */
export function bundleContract(source: string, command = COMMAND): Bundle {
  const dir = mkdtempSync(join(tmpdir(), "idv-bundle-"));
  try {
    const out = join(dir, "bundle.json");
    const result = runTool("redocly", ["bundle", source, "--output", out, "--ext", "json"]);
    if (result.status !== 0)
      throw new Error(`redocly bundle failed for ${source}:\n${result.stderr.slice(-2000)}`);
    const bundled = JSON.parse(readFileSync(out, "utf8")) as Record<string, unknown>;
    const document = { "x-generated": generatedNotice(source, command), ...bundled };
    return {
      document,
      json: `${JSON.stringify(document, null, 2)}\n`,
      yaml:
        commentHeader("#", source, command) +
        stringify(document, { lineWidth: 0, aliasDuplicateObjects: false }),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
