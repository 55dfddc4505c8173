import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root, whatever the working directory. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** An absolute path inside the repository. */
export const fromRoot = (...parts: string[]): string => resolve(ROOT, ...parts);
