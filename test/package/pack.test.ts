// Packs the package, installs the tarball into a fresh project and uses it as an integrator would.
import { execFileSync, spawnSync } from "node:child_process";
import { createHmac } from "node:crypto";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";
import { QUIET_ENV } from "../../scripts/lib/run-tool.js";

const dir = mkdtempSync(join(tmpdir(), "idv-pack-"));
const app = join(dir, "app");
let packedFiles: string[] = [];
const npm = (args: string[], cwd: string) =>
  execFileSync("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd,
    env: QUIET_ENV,
    encoding: "utf8",
  });

beforeAll(() => {
  // npm run build: the package's own build, so that the test covers it too.
  npm(["run", "build"], fromRoot());
  const [packed] = JSON.parse(
    npm(["pack", "--ignore-scripts", "--json", "--pack-destination", dir], fromRoot()),
  );
  packedFiles = (packed?.files ?? []).map((f: { path: string }) => f.path);
  const tarball = readdirSync(dir).find((f) => f.endsWith(".tgz"));
  if (!tarball) throw new Error(`npm pack wrote no tarball into ${dir}`);
  mkdirSync(app);
  writeFileSync(
    join(app, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" }),
  );
  // Offline: the dependencies come from the npm cache the repository was installed from.
  npm(["install", "--offline", "--ignore-scripts", join(dir, tarball)], app);
  symlinkSync(fromRoot("node_modules/typescript"), join(app, "node_modules/typescript"), "dir");
  writeFileSync(
    join(app, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        lib: ["ES2022", "DOM"],
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: [],
      },
      include: ["*.ts"],
    }),
  );
  // The TypeScript fixtures are .txt here so that the repository's own type check leaves them alone.
  for (const file of ["consumer.ts", "mistakes.ts", "run-consumer.mjs"]) {
    const source = fromRoot("test/package/fixtures", file.endsWith(".ts") ? `${file}.txt` : file);
    copyFileSync(source, join(app, file));
  }
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** tsc's errors in the consumer project, as "file:line". */
function compileErrors(): string[] {
  const tsc = spawnSync(
    process.execPath,
    [join(app, "node_modules/typescript/bin/tsc"), "-p", ".", "--pretty", "false"],
    {
      cwd: app,
      encoding: "utf8",
    },
  );
  return [...tsc.stdout.matchAll(/^([\w.-]+)\((\d+),\d+\): error/gm)].map(
    ([, file, line]) => `${file}:${line}`,
  );
}

describe("the packed package in a fresh strict project", () => {
  it("holds the built runtime, its types and the contracts, and nothing of the repository's own", () => {
    for (const file of [
      "dist/src/index.js",
      "dist/src/index.d.ts",
      "dist/generated/operations.js",
      "generated/openapi.json",
      "generated/manifest.json",
      "package.json",
    ]) {
      expect(packedFiles).toContain(file);
    }
    expect(packedFiles.filter((f) => /^(test|bench|scripts|openapi|src)\//.test(f))).toEqual([]);
    // The generated sources are compiled into dist/: shipping them too would only double the size.
    expect(packedFiles.filter((f) => /^generated\/.*\.(ts|js)$/.test(f))).toEqual([]);
  });

  it("type-checks the consumer's calls, and rejects exactly the four marked mistakes", () => {
    const mistakes = readFileSync(fromRoot("test/package/fixtures/mistakes.ts.txt"), "utf8")
      .split("\n")
      .flatMap((line, i) => (line.includes("// error:") ? [`mistakes.ts:${i + 1}`] : []));
    expect(mistakes).toHaveLength(4);
    expect(compileErrors().sort()).toEqual(mistakes.sort());
  });

  it("sends the documented headers and signature from plain Node.js", () => {
    const out = JSON.parse(
      execFileSync(process.execPath, ["run-consumer.mjs"], { cwd: app, encoding: "utf8" }),
    );
    const [v2, v4, pdf] = out.sent;
    expect(v2.headers).toMatchObject({ "svc-api-key": "key-1", "svc-secret": "secret-1" });
    expect(v2.headers["svc-signature"]).toBeUndefined();
    expect(v4.headers["svc-secret"]).toBeUndefined();
    const sign = (date: string, body: string) =>
      createHmac("sha256", "secret-1")
        .update(date + body)
        .digest("hex");
    expect(v4.headers["svc-signature"]).toBe(sign(v4.headers["svc-date"], v4.body));
    expect(pdf.headers["svc-signature"]).toBe(sign(pdf.headers["svc-date"], ""));
    expect(out.file).toEqual({ name: "kyb-3.pdf", size: 4 });
    expect(out.openapi).toBe("3.1.0");
  });
});
