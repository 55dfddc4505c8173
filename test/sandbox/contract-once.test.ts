// The service's operations and schema compiler are facts of the bundled contract: made by the first
// sandbox of a process and shared by the next (checking the build-time validators hashes the whole
// contract, milliseconds per sandbox). A failure to make them is not kept: the next sandbox tries again.
import { afterEach, describe, expect, it, vi } from "vitest";

const opened = vi.hoisted(() => ({ calls: 0, failNext: false }));

vi.mock("../../src/contract/precompiled.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../src/contract/precompiled.js")>();
  return {
    ...original,
    openSchemaCompiler: (...args: Parameters<typeof original.openSchemaCompiler>) => {
      opened.calls++;
      if (opened.failNext) {
        opened.failNext = false;
        return Promise.reject(new Error("the compiler could not be opened"));
      }
      return original.openSchemaCompiler(...args);
    },
  };
});

const { createSandbox } = await import("../../sandbox/index.js");

const closing: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const sandbox of closing.splice(0)) await sandbox.close();
});

describe("the service's contract", () => {
  it("is opened again after a failure, then once for every later sandbox, each answering alike", async () => {
    opened.failNext = true;
    await expect(createSandbox({ key: "k", secret: "s" })).rejects.toThrow("could not be opened");
    for (let i = 0; i < 3; i++) {
      const sandbox = await createSandbox({ key: "k", secret: "s" });
      closing.push(sandbox);
      const answer = await sandbox.fetch(`${sandbox.url}/api/v2/send_text`, {
        method: "POST",
        headers: { "content-type": "application/json", "svc-api-key": "k", "svc-secret": "s" },
        body: JSON.stringify({ reference: "r", contact_phone: "64211234567" }),
      });
      expect(answer.status).toBe(200);
      // The schema still checks each request: a body without its required member is refused.
      const refused = await sandbox.fetch(`${sandbox.url}/api/v2/send_text`, {
        method: "POST",
        headers: { "content-type": "application/json", "svc-api-key": "k", "svc-secret": "s" },
        body: JSON.stringify({ contact_phone: "64211234567" }),
      });
      expect(refused.status).toBe(422);
    }
    expect(opened.calls).toBe(2);
  });
});
