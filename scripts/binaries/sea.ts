// Node 22's steps to a single executable (https://nodejs.org/api/single-executable-applications.html):
// a preparation blob made by `node --experimental-sea-config` of the executable's own Node version,
// injected into a copy of Node's binary with postject under the SEA fuse. Node 25.5 and later do both
// with `node --build-sea`. Injecting breaks a Mach-O file's signature: macOS users sign it ad hoc
// (docs/without-node.md), as Node's docs have it.
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, writeFileSync } from "node:fs";
import { runTool } from "../lib/run-tool.js";
import { SEA_FUSE } from "./node-binaries.js";

/** One single executable to make. */
export interface SeaJob {
  /** The bundled CommonJS script it runs. */
  main: string;
  /** Asset keys and the files they hold. */
  assets: Record<string, string>;
  /** Where its config and blob are written. */
  blobBase: string;
  /** The Node binary it is made from, and the executable to write. */
  node: string;
  /** A Node of the same version that runs here and makes the blob. */
  blobMaker: string;
  output: string;
  /** V8's code cache speeds up the start, but only the blob maker's platform can read it. */
  codeCache: boolean;
  macho: boolean;
}

/** Make one single executable; throws with the tool's words when a step fails. */
export function makeSea(job: SeaJob): void {
  const config = `${job.blobBase}.sea-config.json`;
  const blob = `${job.blobBase}.blob`;
  writeFileSync(
    config,
    `${JSON.stringify(
      {
        main: job.main,
        output: blob,
        disableExperimentalSEAWarning: true,
        useSnapshot: false,
        useCodeCache: job.codeCache,
        assets: job.assets,
      },
      null,
      2,
    )}\n`,
  );
  execFileSync(job.blobMaker, ["--experimental-sea-config", config], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  copyFileSync(job.node, job.output);
  chmodSync(job.output, 0o755);
  const args = [job.output, "NODE_SEA_BLOB", blob, "--sentinel-fuse", SEA_FUSE];
  if (job.macho) args.push("--macho-segment-name", "NODE_SEA");
  const injected = runTool("postject", args);
  if (injected.status !== 0) throw new Error(`postject failed on ${job.output}: ${injected.stderr.trim()}`);
}
