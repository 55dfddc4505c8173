// The probe reads the Arazzo documents from generated/arazzo.json at run time: it must be the YAML's
// exact copy, or the probe runs journeys the documents no longer describe.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { bundledArazzo } from "../../src/arazzo/bundled.js";
import { arazzoJson } from "../../scripts/arazzo/build-json.js";
import { loadArazzo } from "../../scripts/arazzo/load-yaml.js";
import { fromRoot, ROOT } from "../../scripts/lib/paths.js";

describe("generated/arazzo.json", () => {
  it("is what `npm run build:arazzo` makes from arazzo/*.arazzo.yaml", () => {
    expect(readFileSync(fromRoot("generated/arazzo.json"), "utf8")).toBe(arazzoJson(ROOT));
  });

  it("holds every document, read as the YAML reads", () => {
    const yaml = loadArazzo(ROOT);
    expect(yaml.length).toBeGreaterThan(5);
    expect(bundledArazzo()).toEqual(yaml);
  });
});
