// Every event is checked against the AsyncAPI contract before it is queued: a broken one is held
// back and reported (naming the channel and the pointer), never sent.
import { describe, expect, it } from "vitest";
import { Sandbox } from "../../sandbox/sandbox.js";

describe("the sandbox's own delivery check", () => {
  it("holds back an event the contract rejects and says where", async () => {
    const reported: string[] = [];
    const sandbox = new Sandbox({
      credentials: { apiKey: "k", secret: "s" },
      contractViolation: (what) => reported.push(what),
    });
    sandbox.queue.addReceiver("http://127.0.0.1:9/hook", "events");
    // A case without its transaction_id: the envelope requires one.
    sandbox.emitEddCompleted({ reference: "EDD-1", primary_contact: {} });
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatch(/^eddCaseCompleted case_completed: .* at \/transaction_id$/);
    expect(sandbox.queue.size).toBe(0);
    // A whole one goes out.
    sandbox.emitEddCompleted({ reference: "EDD-1", transaction_id: "t-1", primary_contact: {} });
    expect(sandbox.queue.size).toBe(1);
    await sandbox.close();
  });
});
