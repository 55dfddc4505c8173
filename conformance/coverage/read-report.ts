// Reading a coverage report back (for `coverage merge`): a file from elsewhere (another CI shard), so
// hostile until proven a report of this format, checked member by member before anything uses it.
import { readFile, stat } from "node:fs/promises";
import { describeJsonError, InputError } from "../traffic/input-error.js";
import { COVERAGE_VERSION, type CoverageReport, type KindCoverage, kindsOf } from "./report.js";
import type { Json } from "../../src/contract/json.js";

/** The largest report read: the bundled contract's reports are some hundred kilobytes. */
export const MAX_REPORT_BYTES = 64 * 1024 * 1024;
/** The longest location taken: a JSON pointer into a contract. */
const MAX_LOCATION = 4096;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

function locations(value: unknown, file: string, where: string): string[] {
  if (!Array.isArray(value)) throw new InputError(file, `${where} is not a list`);
  for (const item of value)
    if (typeof item !== "string" || !item.startsWith("/") || item.length > MAX_LOCATION)
      throw new InputError(file, `${where} holds something that is not a location of the contract`);
  return value as string[];
}

function kind(value: unknown, file: string, name: string): KindCoverage {
  if (!isRecord(value)) throw new InputError(file, `kinds.${name} is missing or not an object`);
  const seen = locations(value.seen, file, `kinds.${name}.seen`);
  const unseen = locations(value.unseen, file, `kinds.${name}.unseen`);
  const total = seen.length + unseen.length;
  if (value.total !== total || value.covered !== seen.length)
    throw new InputError(file, `kinds.${name}: its counts do not match its locations`);
  return { total, covered: seen.length, percent: Number(value.percent), seen, unseen };
}

/** A report from its JSON text; InputError naming the file and the member when it is not one. */
export function parseReport(text: string, file: string): CoverageReport {
  let raw: Json;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new InputError(file, describeJsonError(error));
  }
  if (!isRecord(raw)) throw new InputError(file, "is not a coverage report (not a JSON object)");
  if (raw.version !== COVERAGE_VERSION)
    throw new InputError(
      file,
      `is not a coverage report of version ${COVERAGE_VERSION} (its version: ${typeof raw.version === "number" ? raw.version : "none"})`,
    );
  const { command, contract } = raw;
  if (command !== "check" && command !== "webhooks")
    throw new InputError(file, "command is neither check nor webhooks");
  if (
    !isRecord(contract) ||
    (contract.format !== "openapi" && contract.format !== "asyncapi") ||
    !["title", "version", "digest"].every((k) => typeof contract[k] === "string")
  )
    throw new InputError(file, "contract is missing its format, title, version or digest");
  if (!isRecord(raw.kinds)) throw new InputError(file, "kinds is missing or not an object");
  const kinds: CoverageReport["kinds"] = {};
  for (const name of kindsOf(command))
    kinds[name] = kind(Object.hasOwn(raw.kinds, name) ? raw.kinds[name] : undefined, file, name);
  return {
    version: COVERAGE_VERSION,
    command,
    contract: {
      format: contract.format,
      title: contract.title as string,
      version: contract.version as string,
      digest: contract.digest as string,
    },
    kinds,
  };
}

/** Read a report file, at most MAX_REPORT_BYTES. */
export async function readReport(file: string): Promise<CoverageReport> {
  let text: string;
  try {
    if ((await stat(file)).size > MAX_REPORT_BYTES)
      throw new InputError(
        file,
        `is larger than ${MAX_REPORT_BYTES / 1024 / 1024} MiB: not a coverage report`,
      );
    text = await readFile(file, "utf8");
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError(file, "cannot be read");
  }
  return parseReport(text, file);
}
