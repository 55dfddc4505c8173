// The package's README (docs/package/README.md, what npm users read) shows every way to run the
// sandbox in a test, the socket-free ones included; test/package/pack.test.ts compiles its blocks.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";

const blocks = [
  ...readFileSync(fromRoot("docs/package/README.md"), "utf8").matchAll(/^```ts\n([\s\S]*?)^```$/gm),
]
  .map(([, code]) => code ?? "")
  .join("\n");

describe("the package's README", () => {
  it.each([
    "createSandbox(",
    "sandbox.receivers.add(async (request)",
    "fetch: sandbox.fetch",
    'from "idv-contract/msw"',
    "sandboxHandlers(sandbox, { baseUrl })",
    "control.trigger(",
    "control.reset()",
    "control.settled()",
    "in_flight",
  ])("shows %s in a TypeScript block", (use) => {
    expect(blocks).toContain(use);
  });
});
