// Finds the version of the contract to compare with (the newest `v*` tag, or the first commit that
// has the contract) and bundles it from git, in a temporary directory, with the same bundling code
// as `npm run build:contract` and `npm run build:asyncapi`.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ASYNCAPI_SOURCE, bundleAsyncApi } from "../contract/asyncapi-bundle.js";
import { bundleContract, OPENAPI_SOURCE } from "../contract/openapi-bundle.js";
import { ARAZZO_DIR, isArazzoFile } from "../../src/arazzo/documents.js";
import { loadArazzo } from "../arazzo/load-yaml.js";
import type { ContractVersion } from "./change.js";

/** Unusable setup (no git, a ref this clone does not have): the check cannot say anything. */
export class BaseError extends Error {}

/** The receiver test vectors, versioned with the contract. */
const VECTORS = "vectors/receiver.json";
/** The directories the contract's sources live in (the workflows and the receiver vectors included). */
const CONTRACT_DIRS = ["openapi", "asyncapi", ARAZZO_DIR, "vectors"];

/** The receiver test vectors of a checkout, when it has them. */
function readVectors(dir: string): ContractVersion["receiverVectors"] {
  const file = join(dir, VECTORS);
  return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : undefined;
}

function git(root: string, args: string[], input?: string): { ok: boolean; out: Buffer; err: string } {
  const r = spawnSync("git", args, { cwd: root, input, maxBuffer: 256 * 1024 * 1024 });
  if (r.error) throw new BaseError(`git could not be run: ${r.error.message}`);
  return { ok: r.status === 0, out: r.stdout, err: r.stderr.toString("utf8").trim() };
}

const text = (r: { out: Buffer }) => r.out.toString("utf8").trim();

export interface Base {
  ref: string;
  commit: string;
  /** How it was chosen, for the report. */
  why: string;
  /** The released version it stands for; null when nothing was released (no tag). */
  version: { text: string; major: number } | null;
}

/** The base to compare with: `--base REF`, else the newest `v*` tag, else the first commit with the contract. */
export function findBase(root: string, explicit?: string): Base {
  if (!git(root, ["rev-parse", "--git-dir"]).ok) throw new BaseError(`${root} is not a git checkout.`);
  const shallow = text(git(root, ["rev-parse", "--is-shallow-repository"])) === "true";
  const fetchHint = shallow
    ? " This clone is shallow: fetch history and tags first (git fetch --tags --unshallow), or pass --base REF."
    : "";
  const commitOf = (ref: string) => {
    const r = git(root, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
    if (!r.ok) throw new BaseError(`${ref} is not a commit of this clone.${fetchHint}`);
    return text(r);
  };
  const versionOf = (ref: string) => {
    const m = /^v(\d+)\.(\d+)\.(\d+)$/.exec(ref);
    return m ? { text: `${m[1]}.${m[2]}.${m[3]}`, major: Number(m[1]) } : null;
  };

  if (explicit)
    return { ref: explicit, commit: commitOf(explicit), why: "--base", version: versionOf(explicit) };

  const tags = text(git(root, ["tag", "--list", "v*", "--sort=-v:refname"]))
    .split("\n")
    .filter((t) => /^v\d+\.\d+\.\d+$/.test(t));
  if (tags.length > 0) {
    const tag = tags[0]!;
    return { ref: tag, commit: commitOf(tag), why: "the newest v* tag", version: versionOf(tag) };
  }
  // Without a tag, the first commit of a shallow clone is only where the clone was cut.
  if (shallow)
    throw new BaseError(
      "No v* tag here, and this clone is shallow, so its first commit is not the contract's first." +
        fetchHint,
    );
  const first = text(git(root, ["log", "--diff-filter=A", "--format=%H", "--reverse", "--", OPENAPI_SOURCE]))
    .split("\n")
    .filter(Boolean)[0];
  if (!first) throw new BaseError(`No commit has ${OPENAPI_SOURCE}: nothing to compare with.`);
  return {
    ref: first.slice(0, 12),
    commit: first,
    why: "no v* tag: the first commit that has the contract",
    version: null,
  };
}

/** Bundle the contract as it was at a commit: its sources read from git into a temporary directory. */
export function bundleAt(root: string, commit: string): ContractVersion {
  const dir = mkdtempSync(join(tmpdir(), "idv-contract-base-"));
  try {
    const listed = git(root, ["ls-tree", "-r", "-z", "--name-only", commit, "--", ...CONTRACT_DIRS]);
    if (!listed.ok) throw new BaseError(`git ls-tree ${commit} failed: ${listed.err}`);
    const paths = text(listed).split("\0").filter(Boolean);
    // One git process for every file: `cat-file --batch` answers "<sha> blob <size>\n<bytes>\n" per line asked.
    const batch = git(root, ["cat-file", "--batch"], paths.map((p) => `${commit}:${p}\n`).join(""));
    if (!batch.ok) throw new BaseError(`git cat-file failed: ${batch.err}`);
    let at = 0;
    for (const path of paths) {
      const eol = batch.out.indexOf(10, at);
      const header = batch.out.subarray(at, eol).toString("utf8").split(" ");
      if (header[1] !== "blob")
        throw new BaseError(`git cat-file: ${path} at ${commit} is ${header[1] ?? "missing"}`);
      const size = Number(header[2]);
      const file = join(dir, path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, batch.out.subarray(eol + 1, eol + 1 + size));
      at = eol + 1 + size + 1;
    }
    const has = (source: string) => paths.includes(source);
    return {
      openapi: has(OPENAPI_SOURCE) ? bundleContract(join(dir, OPENAPI_SOURCE)).document : undefined,
      asyncapi: has(ASYNCAPI_SOURCE) ? bundleAsyncApi(join(dir, ASYNCAPI_SOURCE)).document : undefined,
      arazzo: paths.some((p) => p.startsWith(`${ARAZZO_DIR}/`) && isArazzoFile(p)) ? loadArazzo(dir) : [],
      receiverVectors: has(VECTORS) ? readVectors(dir) : undefined,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Bundle the contract as it is in the working tree. */
export function bundleWorkingTree(root: string): ContractVersion {
  return {
    openapi: bundleContract(join(root, OPENAPI_SOURCE)).document,
    asyncapi: bundleAsyncApi(join(root, ASYNCAPI_SOURCE)).document,
    receiverVectors: readVectors(root),
  };
}
