// Worker threads on a module of the project's, from the compiled package or from source. Node 20
// does not apply the parent's module hooks to a worker's entry point, so from source (tests, tsx)
// the thread registers tsx before it imports the entry. In a single executable the entry is its
// bundled script, one of the executable's assets.
import { Worker, type WorkerOptions } from "node:worker_threads";
import { executableAsset } from "./single-executable.js";

/**
 * A worker on `name` beside `base` (pass `import.meta.url`): `name.js` when `base` is compiled,
 * `name.ts` with tsx registered in the thread when it is source.
 */
export function startModuleWorker(base: string, name: string, options: WorkerOptions = {}): Worker {
  if (!base.endsWith(".ts")) {
    const entry = new URL(`./${name}.js`, base);
    const bundled = executableAsset(entry);
    if (bundled) return new Worker(bundled.toString("utf8"), { ...options, eval: true });
    return new Worker(entry, options);
  }
  const api = import.meta.resolve("tsx/esm/api");
  const entry = new URL(`./${name}.ts`, base).href;
  const bootstrap = `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}
