// Node 22.8 and later can keep the code it compiles from a program's modules on disk and reuse it at the
// next start. The CLI asks for it; the library leaves the settings of its caller's process alone.
import nodeModule from "node:module";
import { inSingleExecutable } from "../../src/single-executable.js";

/** The part of node:module that the compile cache needs; Node 20 has none of it. */
export interface CompileCacheApi {
  enableCompileCache?: (directory?: string) => { status: number };
  constants?: { compileCacheStatus?: { ENABLED: number; ALREADY_ENABLED: number } };
}

/**
 * Turn on Node's compile cache where Node has it, in Node's own place for it: the directory named by
 * NODE_COMPILE_CACHE, else node-compile-cache under the system's temporary directory. Nothing leaves the
 * machine; NODE_DISABLE_COMPILE_CACHE=1 turns it off. Not in a single executable: it carries V8's
 * code cache of its script, which Node's compile cache does not cover (it would only leave an empty
 * folder in the temporary directory). Whether the cache is on afterwards.
 */
export function enableCompileCache(
  api: CompileCacheApi = nodeModule as CompileCacheApi,
  singleExecutable: boolean = inSingleExecutable(),
): boolean {
  if (singleExecutable || typeof api.enableCompileCache !== "function") return false;
  const { status } = api.enableCompileCache();
  const statuses = api.constants?.compileCacheStatus;
  return status === statuses?.ENABLED || status === statuses?.ALREADY_ENABLED;
}
