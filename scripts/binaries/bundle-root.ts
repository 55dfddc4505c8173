// Injected into each bundle of the single executables (esbuild `inject`): the bundled modules'
// import.meta.url is a path under this root, whose keys name the executable's assets.
import { bundleRoot } from "../../src/single-executable.js";

/** The bundle's stand-in for the folder its modules were in. */
export const __idvBundleRoot = bundleRoot();
