import { readFile } from "node:fs/promises";
import bundled from "../../generated/openapi.json" with { type: "json" };
import { describeJsonError, InputError } from "../traffic/input-error.js";
import type { Json } from "../../src/contract/json.js";

/** The bundled contract shipped with the package. */
export function bundledContract(): Json {
  return bundled;
}

/** Read a bundled OpenAPI 3.x document from a JSON (or, when `yaml` is installed, YAML) file. */
export async function readContract(file: string): Promise<Json> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    throw new InputError(file, "cannot be read");
  }
  let document: Json;
  if (/\.ya?ml$/i.test(file)) {
    // yaml is a development dependency: JSON needs nothing beyond the package's own.
    const yaml = await import("yaml").catch(() => undefined);
    if (!yaml)
      throw new InputError(file, "is YAML, but the yaml package is not installed: give the JSON bundle");
    try {
      document = yaml.parse(text);
    } catch {
      throw new InputError(file, "is not valid YAML");
    }
  } else {
    try {
      document = JSON.parse(text);
    } catch (error) {
      throw new InputError(file, describeJsonError(error));
    }
  }
  if (typeof document?.openapi !== "string" || !document.openapi.startsWith("3.")) {
    throw new InputError(file, "is not an OpenAPI 3 document (no `openapi: 3.x` member)");
  }
  if (typeof document.paths !== "object" || document.paths === null) {
    throw new InputError(file, "has no `paths`");
  }
  const external = findExternalRef(document);
  if (external) throw new InputError(file, `has an external $ref (${external}): give a bundled document`);
  return document;
}

function findExternalRef(node: Json, depth = 0): string | undefined {
  if (node === null || typeof node !== "object" || depth > 200) return undefined;
  if (typeof node.$ref === "string" && !node.$ref.startsWith("#")) return node.$ref;
  for (const value of Object.values(node)) {
    const found = findExternalRef(value, depth + 1);
    if (found) return found;
  }
  return undefined;
}
