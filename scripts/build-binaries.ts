// npm run build:binaries [-- --platform NAME …]: the sandbox and the conformance suite as single
// executables (Node's SEA) in dist/binaries/: idv-sandbox-PLATFORM and idv-conformance-PLATFORM
// (.exe on Windows), and SHA256SUMS. Each runs one script bundled by esbuild from the sources; the
// contracts and the precompiled validators are in that script, the docs site and the worker threads'
// scripts are the executable's assets. Every platform's Node is NODE_VERSION, and so is the Node
// that makes the blobs (this machine's platform's build of it). A platform whose Node binary cannot
// be had is skipped, saying why. By default every platform of PLATFORMS; --platform picks some; --out DIR writes elsewhere
// (the tests: dist/ is rebuilt by other test files while they run).
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { buildSite, DEFAULT_BUILD } from "./docs/build-site.js";
import { bundle } from "./binaries/bundle.js";
import { HERE, NODE_VERSION, nodeBinary, PLATFORMS, type Platform } from "./binaries/node-binaries.js";
import { makeSea } from "./binaries/sea.js";
import { fromRoot } from "./lib/paths.js";

/** The most an executable may weigh (the bound): Node itself is most of it. */
const MAX_BYTES = 150 * 1024 * 1024;
const argv = process.argv.slice(2);
const outAt = argv.indexOf("--out");
const OUT = outAt >= 0 && argv[outAt + 1] ? resolve(argv[outAt + 1]!) : fromRoot("dist/binaries");
const STAGE = mkdtempSync(join(tmpdir(), "idv-binaries-"));
process.on("exit", () => rmSync(STAGE, { recursive: true, force: true }));
const CACHE = fromRoot("node_modules/.cache/idv-node-binaries");
const VERSION = NODE_VERSION;

function chosenPlatforms(argv: string[]): Platform[] {
  const names = argv.flatMap((arg, i) => (arg === "--platform" ? [argv[i + 1] ?? ""] : []));
  if (names.length === 0) return PLATFORMS;
  return names.map((name) => {
    const found = PLATFORMS.find((p) => p.name === name);
    if (!found)
      throw new Error(`unknown platform ${JSON.stringify(name)}: ${PLATFORMS.map((p) => p.name).join(", ")}`);
    return found;
  });
}

/** Every file under a folder, as asset keys (`prefix/relative/path`) and their paths. */
function assetsOf(folder: string, prefix: string): Record<string, string> {
  const assets: Record<string, string> = {};
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else assets[`${prefix}/${relative(folder, path).split("\\").join("/")}`] = path;
    }
  };
  walk(folder);
  return assets;
}

const platforms = chosenPlatforms(argv);
rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });

await buildSite({ ...DEFAULT_BUILD, outDir: join(STAGE, "site"), root: "/docs/" });
const script = (name: string): string => join(STAGE, `${name}.cjs`);
await bundle([
  { entry: "sandbox/cli.ts", outfile: script("sandbox") },
  { entry: "conformance/cli.ts", outfile: script("conformance") },
  { entry: "sandbox/deliveries/worker.ts", outfile: script("sandbox-worker") },
  { entry: "conformance/run/worker.ts", outfile: script("conformance-worker") },
]);
// The worker threads' scripts under the keys of the modules they replace (see src/single-executable.ts).
const programs: { tool: string; main: string; assets: Record<string, string> }[] = [
  {
    tool: "idv-sandbox",
    main: script("sandbox"),
    assets: {
      ...assetsOf(join(STAGE, "site"), "site"),
      "sandbox/deliveries/worker.js": script("sandbox-worker"),
    },
  },
  {
    tool: "idv-conformance",
    main: script("conformance"),
    assets: { "conformance/run/worker.js": script("conformance-worker") },
  },
];

// The blob is read only by the Node version that made it: this machine's build of VERSION makes them.
const here = PLATFORMS.find((p) => p.name === HERE);
const maker = here ? nodeBinary(here, VERSION, CACHE) : { missing: `no Node build is known for ${HERE}` };
if ("missing" in maker) throw new Error(`cannot make the blobs here: ${maker.missing}`);

const built: string[] = [];
for (const platform of platforms) {
  const node = nodeBinary(platform, VERSION, CACHE);
  if ("missing" in node) {
    console.log(`skipped ${platform.name}: ${node.missing}`);
    continue;
  }
  for (const program of programs) {
    const name = `${program.tool}-${platform.name}${platform.exe ? ".exe" : ""}`;
    const output = join(OUT, name);
    makeSea({
      main: program.main,
      assets: program.assets,
      blobBase: join(STAGE, `${program.tool}-${platform.name}`),
      node: node.path,
      blobMaker: maker.path,
      output,
      codeCache: platform.name === HERE,
      macho: platform.macho,
    });
    const { size } = statSync(output);
    if (size > MAX_BYTES) throw new Error(`${name} is ${size} bytes, over ${MAX_BYTES}`);
    built.push(name);
    console.log(
      `built ${relative(process.cwd(), output)} (${(size / 1024 / 1024).toFixed(1)} MiB, Node ${VERSION})`,
    );
  }
}
const sums = built.map(
  (name) =>
    `${createHash("sha256")
      .update(readFileSync(join(OUT, name)))
      .digest("hex")}  ${name}\n`,
);
writeFileSync(join(OUT, "SHA256SUMS"), sums.join(""));
console.log(`wrote ${relative(process.cwd(), join(OUT, "SHA256SUMS"))} (${built.length} executables)`);
