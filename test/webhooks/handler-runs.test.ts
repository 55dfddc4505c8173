// createWebhookHandler in both its forms: when the typed handler runs (after the answer by default,
// before it with acknowledge "after-handler"), and what a failing handler, store or hook does.
import { afterEach, describe, expect, it, vi } from "vitest";
import { createDeduper, type DedupeStore } from "../../src/webhooks/index.js";
import { FORMS } from "./handler-servers.js";
import { closeStarted, start } from "./handler-start.js";

afterEach(closeStarted);

describe.each(FORMS)("createWebhookHandler, %s form: when the handler runs", (form) => {
  it("after-handler: a handler that throws is answered 500 and the retry is processed", async () => {
    let attempts = 0;
    const errors: unknown[] = [];
    const { post } = await start(form, {
      acknowledge: "after-handler",
      onError: (error, failure) => void errors.push([failure.stage, (error as Error).message]),
      on: {
        completed: async () => {
          if (++attempts === 1) throw new Error("database down");
        },
      },
    });
    const first = await post("completed");
    expect(first.status).toBe(500);
    expect(await first.text()).toBe("Internal Server Error");
    expect((await post("completed")).status).toBe(200);
    expect((await post("completed")).status).toBe(200); // now a duplicate
    expect(attempts).toBe(2);
    expect(errors).toEqual([["handler", "database down"]]);
  });

  it("after-handler: a retry while the first attempt's handler runs is 503, so a failing first attempt is not lost", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let attempts = 0;
    const { post, refusals } = await start(form, {
      acknowledge: "after-handler",
      onError: () => undefined,
      on: {
        completed: async () => {
          if (++attempts > 1) return;
          started();
          await gate;
          throw new Error("database down");
        },
      },
    });
    const first = post("completed");
    await running;
    // The service retries while the first attempt is still being handled.
    expect((await post("completed")).status).toBe(503);
    expect(refusals.map((r) => r.reason)).toEqual(["in_progress"]);
    release();
    expect((await first).status).toBe(500);
    // The first attempt failed and was forgotten: the next retry is processed.
    expect((await post("completed")).status).toBe(200);
    expect(attempts).toBe(2);
  });

  it("after-handler: a store that cannot forget is reported, the answer is still 500", async () => {
    const claimed = new Set<string>();
    const store: DedupeStore = { claim: (key) => !claimed.has(key) && Boolean(claimed.add(key)) };
    const stages: string[] = [];
    const { post } = await start(form, {
      acknowledge: "after-handler",
      dedupe: createDeduper({ store }),
      onError: (_, failure) => void stages.push(failure.stage),
      on: () => {
        throw new TypeError("bug");
      },
    });
    expect((await post("created")).status).toBe(500);
    expect(stages).toEqual(["handler", "forget"]);
  });

  it("before-handler (the default): 200 first; a failing handler goes to onError, its work to defer", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const deferred: Promise<void>[] = [];
    const errors: string[] = [];
    let finished = false;
    const { post } = await start(form, {
      defer: (work) => void deferred.push(work),
      onError: (error, failure) =>
        void errors.push(`${failure.stage} ${(error as Error).message} ${failure.event?.event}`),
      on: {
        created: async () => {
          await gate; // still running when the answer is sent
          finished = true;
        },
        error: () => {
          throw new Error("no handler for errors yet");
        },
      },
    });
    expect((await post("created")).status).toBe(200);
    expect(finished).toBe(false);
    expect(deferred).toHaveLength(1);
    release();
    await deferred[0];
    expect(finished).toBe(true);
    expect((await post("error")).status).toBe(200);
    await deferred[1];
    expect(errors).toEqual(["handler no handler for errors yet error"]);
  });

  it("by default logs a failing handler by the error's name only", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const deferred: Promise<void>[] = [];
      const { post } = await start(form, {
        defer: (work) => void deferred.push(work),
        onError: undefined,
        on: () => {
          throw new RangeError("Jane Doe, born 1985-07-02");
        },
      });
      expect((await post("completed")).status).toBe(200);
      await deferred[0];
      const text = logged.mock.calls.flat().join("\n");
      expect(text).toContain("RangeError");
      expect(text).not.toContain("Jane");
    } finally {
      logged.mockRestore();
    }
  });

  it("lets no error of its hooks reach the request", async () => {
    const { post } = await start(form, {
      onRefused: () => {
        throw new Error("logger down");
      },
      defer: () => {
        throw new Error("defer down");
      },
    });
    expect((await post("created", { body: "{" })).status).toBe(400);
    expect((await post("created")).status).toBe(200);
  });
});
