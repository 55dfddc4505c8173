// The build-time validators (generated/conformance-validators.js) are those of the committed contract,
// and judge exactly as validators compiled at run time do.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildCorpus } from "../../bench/corpus.js";
import { AjvCompiler } from "../../src/contract/ajv-compiler.js";
import { checkerFor } from "../../conformance/run/open-checker.js";
import { loadPrecompiled } from "../../src/contract/precompiled.js";
import { buildValidatorsModule } from "../../scripts/build-conformance.js";
import { fromRoot } from "../../scripts/lib/paths.js";
import { contract } from "./support/exchanges.js";

describe("generated/conformance-validators.js", () => {
  it("is fresh: regenerating it from generated/openapi.json changes nothing", () => {
    const committed = readFileSync(fromRoot("generated/conformance-validators.js"), "utf8");
    expect(
      committed.startsWith(
        "// Generated from generated/openapi.json by `npm run build:conformance`. Do not edit",
      ),
    ).toBe(true);
    // A boolean, not the 400 kB diff: the fix is to regenerate, not to read it.
    const fresh = buildValidatorsModule(contract) === committed;
    expect(fresh, "generated/conformance-validators.js is stale: run npm run build:conformance").toBe(true);
  });

  it("is used for the bundled contract and gives the verdicts and findings of run-time ajv", async () => {
    const precompiled = await loadPrecompiled(contract);
    expect(precompiled).toBeDefined();
    if (!precompiled) return;
    const fast = checkerFor(contract, precompiled);
    const slow = checkerFor(contract, new AjvCompiler(contract));
    const corpus = buildCorpus(contract, 2_000, 0.5, 7);
    const differing = corpus.filter(
      (e) =>
        JSON.stringify(fast.checkExchange(e.exchange)) !== JSON.stringify(slow.checkExchange(e.exchange)),
    );
    expect(differing).toEqual([]);
    expect(corpus.filter((e) => !fast.checkExchange(e.exchange).ok).length).toBeGreaterThan(500);
  });

  it("is not used for another contract", async () => {
    expect(
      await loadPrecompiled({ ...contract, info: { ...contract.info, version: "other" } }),
    ).toBeUndefined();
  });
});
