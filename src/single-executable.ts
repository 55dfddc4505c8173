// The package's single executables (`npm run build:binaries`, Node's single-executable applications)
// carry as assets what the npm package keeps as files beside its modules: the docs site and the
// worker threads' scripts. The bundle's modules say they sit under bundleRoot() (their
// import.meta.url), a folder on no disk: a module's path under it is its asset's key.
import { resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import * as sea from "node:sea";

/** Whether this process is one of the package's single executables. */
export function inSingleExecutable(): boolean {
  return sea.isSea();
}

/** The file URL of the folder the bundled modules are said to be in (its drive on Windows), ending in `/`. */
export function bundleRoot(): string {
  return pathToFileURL(`${resolve("/", "idv-contract")}${sep}`).href;
}

/**
 * The asset of the single executable at `url` under bundleRoot() (or at a key such as
 * `site/index.html`); undefined when this is no single executable or it has no such asset.
 */
export function executableAsset(url: URL | string): Buffer | undefined {
  if (!sea.isSea()) return undefined;
  const href = String(url);
  const root = bundleRoot();
  const key = href.startsWith(root) ? decodeURIComponent(href.slice(root.length)) : href;
  try {
    return Buffer.from(sea.getAsset(key));
  } catch {
    return undefined;
  }
}
