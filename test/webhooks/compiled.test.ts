import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fromRoot, ROOT } from "../../scripts/lib/paths.js";

const out = mkdtempSync(join(tmpdir(), "idv-webhooks-dist-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("the compiled helpers", () => {
  it("carry the contract with them and parse a delivery", () => {
    // Compiled as a package build would, into a directory outside the repository.
    writeFileSync(
      join(out, "tsconfig.json"),
      JSON.stringify({
        extends: fromRoot("tsconfig.json"),
        compilerOptions: { noEmit: false, rootDir: ROOT, outDir: join(out, "dist") },
        include: [],
        files: [fromRoot("src/webhooks/index.ts")],
      }),
    );
    const tsc = spawnSync(
      fromRoot("node_modules/.bin/tsc"),
      ["-p", join(out, "tsconfig.json"), "--noCheck"],
      {
        encoding: "utf8",
      },
    );
    expect(tsc.stderr + tsc.stdout).toBe("");
    expect(existsSync(join(out, "dist/generated/asyncapi.json"))).toBe(true);
    symlinkSync(fromRoot("node_modules"), join(out, "node_modules"));

    const script = `
      import { parseWebhook } from ${JSON.stringify(join(out, "dist/src/webhooks/index.js"))};
      const ok = parseWebhook(JSON.stringify({ message: "Hello", event: "test" }));
      const bad = parseWebhook(JSON.stringify({ event: "test" }));
      console.log(JSON.stringify([ok.event?.kind, ok.event?.event, bad.error?.pointer]));
    `;
    const node = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: out,
      encoding: "utf8",
    });
    expect(node.stderr).toBe("");
    expect(JSON.parse(node.stdout)).toEqual(["biometricWebhook", "test", "/message"]);
  });
});
