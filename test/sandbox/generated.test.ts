// The control API's generated files are fresh, and its document stays out of the service's contract.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";

describe("the control API's contract", () => {
  it("generated/sandbox-control.* match openapi-sandbox/ (npm run check:sandbox)", () => {
    expect(() =>
      execFileSync(
        process.execPath,
        ["--import", "tsx", fromRoot("scripts/build-sandbox-control.ts"), "--check"],
        {
          cwd: fromRoot(),
          stdio: "pipe",
        },
      ),
    ).not.toThrow();
  });

  it("is never part of the service's bundle", () => {
    const service = readFileSync(fromRoot("generated/openapi.json"), "utf8");
    expect(service).not.toContain("/_sandbox");
    expect(service).not.toContain("sandbox-control");
  });

  it("starts with a do-not-edit header naming its source", () => {
    const json = JSON.parse(readFileSync(fromRoot("generated/sandbox-control.json"), "utf8"));
    expect(json["x-generated"]).toMatch(/openapi-sandbox\/sandbox-control\.yaml.*Do not edit/);
    expect(readFileSync(fromRoot("generated/sandbox-control-types.ts"), "utf8")).toMatch(
      /^\/\/ Generated from openapi-sandbox\/sandbox-control\.yaml .*Do not edit/,
    );
  });
});
