// What a hostile client, receiver or state file can do to the sandbox, class by class: drive the
// clock past what a date can say, flood a receiver that never answers, make records faster than
// they are forgotten, or hand it a state file whose digest is right and whose contents are not.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { lstatSync, mkdtempSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_EVENTS_KEPT } from "../../sandbox/products/biometric/lifecycle.js";
import { TIMER_BYTES } from "../../sandbox/state/byte-budget.js";
import { MAX_ADVANCE_MS } from "../../sandbox/control/duration.js";
import { launchSandbox } from "../../sandbox/start.js";
import { StateFileError } from "../../sandbox/state/file.js";
import { queueOnClock } from "../support/delivery-queue.js";
import { assertPrototypesUntouched, hostileJsonValue, prototypeSnapshot } from "../support/hostile.js";
import { CREDENTIALS, startRecorder, startTestSandbox } from "../support/sandbox.js";

const snapshot = prototypeSnapshot();
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe("the clock pushed as far as it goes", () => {
  let sbx: Awaited<ReturnType<typeof startTestSandbox>>;
  let receiver: Awaited<ReturnType<typeof startRecorder>>;
  beforeAll(async () => {
    receiver = await startRecorder();
    sbx = await startTestSandbox({ webhookUrl: `${receiver.url}/hook` });
  });
  afterAll(async () => {
    await sbx.running.close();
    await receiver.close();
  });

  it("refuses an advance past the last date it can write, and keeps answering", async () => {
    const post = (duration: string) =>
      fetch(`${sbx.running.url}/_sandbox/clock/advance`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ duration }),
      });
    // The longest advance the control API takes, repeated: what a loop of requests does, without the requests.
    for (let i = 0; i < 30_000; i++) {
      try {
        await sbx.running.sandbox.advance(MAX_ADVANCE_MS);
      } catch {
        break;
      }
    }
    for (let i = 0; i < 3; i++) {
      const res = await post("P3650D");
      expect(res.status).toBeLessThan(500);
      if (res.status !== 200)
        expect((await res.json()).message).toMatch(/^Invalid request body: \/duration: /);
      else await res.arrayBuffer();
    }
    const clock = await fetch(`${sbx.running.url}/_sandbox/clock`);
    expect(clock.status).toBe(200);
    expect((await clock.json()).now).toMatch(ISO);
    // A record and its delivery at the end of time: answered, and the process lives.
    const sent = await sbx.client.POST("/api/v2/send_text", {
      body: { reference: "end-of-time sandbox-pass" },
    });
    expect(sent.response.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 400));
    assertPrototypesUntouched(snapshot);
  });
});

describe("a receiver that never answers", () => {
  it("holds no more deliveries, waiting or timed, than the queue keeps", async () => {
    const stuck = await startRecorder(() => "hang");
    const { queue, clock, close } = queueOnClock({ timeoutMs: 60_000, maxKept: 10 });
    try {
      queue.addReceiver(`${stuck.url}/hook`, "events");
      // Four attempts hang in flight; every other delivery waits its turn, and most are forgotten.
      for (let i = 0; i < 200; i++) {
        queue.emit("events", "biometricWebhook", "created", `tx-${i}`, "{}");
        clock.run();
      }
      expect(queue.size).toBeLessThanOrEqual(10);
      expect(queue.waitingCount).toBeLessThanOrEqual(10);
      expect(clock.pending().length).toBeLessThanOrEqual(10);
    } finally {
      await close();
      await stuck.close();
    }
  });
});

describe("records made faster than they are forgotten", () => {
  it("leave no timers behind once forgotten", async () => {
    const sbx = await startTestSandbox({ maxRecords: 20 });
    try {
      for (let i = 0; i < 60; i++) {
        const { response } = await sbx.client.POST("/api/v2/send_text", {
          body: { reference: `r-${i} sandbox-pending-error` },
        });
        expect(response.status).toBe(200);
      }
      const refs = new Set(sbx.running.sandbox.clock.pending().map((t) => t.ref));
      const kept = new Set(sbx.running.sandbox.biometric.records.keys());
      const { queue } = sbx.running.sandbox;
      expect([...refs].filter((ref) => !kept.has(ref) && !queue.get(ref))).toEqual([]);
    } finally {
      await sbx.running.close();
    }
  });
});

describe("a refused receiver's credentials", () => {
  it("are blamed on the member of the scheme sent, never the other scheme's", async () => {
    const sbx = await startTestSandbox();
    try {
      for (const [auth, where] of [
        [{ scheme: "basic", username: "a:b", password: "p" }, "/auth/username"],
        [{ scheme: "basic", username: "a" }, '/auth is missing member "password"'],
        [{ scheme: "bearer" }, '/auth is missing member "token"'],
        [{ scheme: "bearer", token: "" }, "/auth/token"],
      ] as const) {
        const res = await fetch(`${sbx.running.url}/_sandbox/receivers`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ url: "http://127.0.0.1:9/", auth }),
        });
        expect(res.status).toBe(400);
        expect((await res.json()).message).toContain(`Invalid request body: ${where}`);
      }
    } finally {
      await sbx.running.close();
    }
  });
});

describe("a record edited without end", () => {
  it("keeps a bounded history of its events", async () => {
    const sbx = await startTestSandbox();
    try {
      const { data } = await sbx.client.POST("/api/v2/send_text", { body: { reference: "edited" } });
      const id = data?.transaction_id as string;
      await sbx.control.biometric.complete(id, "pass");
      for (let i = 0; i < MAX_EVENTS_KEPT + 20; i++) await sbx.control.biometric.edit(id, `note ${i}`);
      const { events } = await sbx.control.biometric.get(id);
      expect(events.length).toBe(MAX_EVENTS_KEPT);
      // The newest are kept: the history ends with the last edit.
      expect(events.at(-1)?.event).toBe("updated");
      // And the notes of each edit count against the record budget, as a request's bytes do.
      const before = sbx.running.sandbox.recordBytes;
      await sbx.control.biometric.edit(id, "n".repeat(2000));
      expect(sbx.running.sandbox.recordBytes - before).toBeGreaterThanOrEqual(2000);
    } finally {
      await sbx.running.close();
    }
  });
});

describe("a record kept again", () => {
  it("is counted once and keeps its place: edits never push the record itself out", async () => {
    const sbx = await startTestSandbox({ maxRecords: 3 });
    try {
      const { data } = await sbx.client.POST("/api/v2/send_text", { body: { reference: "kept" } });
      const id = data?.transaction_id as string;
      await sbx.control.biometric.complete(id, "pass");
      for (let i = 0; i < 10; i++) await sbx.control.biometric.edit(id, `note ${i}`);
      expect(sbx.running.sandbox.biometric.records.get(id)?.notes).toBe("note 9");
      expect((await sbx.control.biometric.get(id)).state).toBe("completed");
      // The only record, counted once as what it holds now, not once per edit.
      const record = sbx.running.sandbox.biometric.records.get(id);
      expect(sbx.running.sandbox.recordBytes).toBe(
        Buffer.byteLength(JSON.stringify(record)) + 4 * TIMER_BYTES,
      );
    } finally {
      await sbx.running.close();
    }
  });
});

describe("workflow cases with the longest names the control API takes", () => {
  it("count against the record budget as the bytes they hold", async () => {
    const sbx = await startTestSandbox();
    try {
      const before = sbx.running.sandbox.recordBytes;
      const long = "\u{1F600}".repeat(100); // 200 UTF-16 units, 400 bytes
      for (let i = 0; i < 5; i++)
        await sbx.control.workflow.create({
          external_id: long,
          service_name: long,
          service_external_id: long,
        });
      expect(sbx.running.sandbox.recordBytes - before).toBeGreaterThanOrEqual(5 * 3 * 400);
    } finally {
      await sbx.running.close();
    }
  });
});

describe("a restart with new receiver credentials", () => {
  it("sends the credentials given now, not those saved before", async () => {
    const receiver = await startRecorder();
    const file = join(mkdtempSync(join(tmpdir(), "sbx-rotate-")), "state.json");
    const start = (token: string) =>
      startTestSandbox({
        stateFile: file,
        webhookUrl: receiver.url,
        webhookAuth: { scheme: "bearer", token },
      });
    try {
      await (await start("old-token")).running.close();
      const second = await start("new-token");
      try {
        expect(second.running.sandbox.queue.receivers.size).toBe(1);
        await second.client.POST("/api/v2/send_text", { body: { reference: "rotated" } });
        const got = await second.control.waitForDelivery((d) => d.status === "delivered");
        expect(got.event).toBe("created");
        expect(receiver.received.at(-1)?.headers.authorization).toBe("Bearer new-token");
      } finally {
        await second.running.close();
      }
    } finally {
      await receiver.close();
    }
  });
});

describe("a state file with a right digest and hostile contents", () => {
  const dir = mkdtempSync(join(tmpdir(), "sbx-hostile-state-"));
  const digest = (text: string) => createHash("sha256").update(text).digest("hex");
  const write = (file: string, state: unknown) => {
    const data = JSON.stringify(state) ?? "null";
    writeFileSync(
      file,
      `${JSON.stringify({ format: "idv-sandbox-state", version: 1, sha256: digest(data) })}\n${data}\n`,
    );
  };
  let genuine: Record<string, unknown>;

  beforeAll(async () => {
    // A genuine state to spoil: a record with its timers, a receiver with credentials, a delivery.
    const file = join(dir, "genuine.json");
    const sbx = await startTestSandbox({
      stateFile: file,
      webhookUrl: "http://127.0.0.1:9/hook",
      webhookAuth: { scheme: "bearer", token: "t" },
    });
    await sbx.client.POST("/api/v2/send_text", { body: { reference: "genuine sandbox-pending-error" } });
    await sbx.running.close();
    const text = readFileSync(file, "utf8");
    genuine = JSON.parse(text.slice(text.indexOf("\n") + 1));
  });

  // Each run that starts launches a whole sandbox, whose first delivery starts its delivery thread
  // (from source in tests: tsx registered anew in each thread, some 0.3 to 2 s of CPU). Its time is
  // so many runs of that, never a wait: few enough runs for a loaded machine, and a bound far above them.
  it(
    "starts and answers, or is refused with one StateFileError; nothing is poisoned",
    { timeout: 300_000 },
    async () => {
      let n = 0;
      // Every place of the genuine state: a top-level member, its first item, or a member of that item.
      const places: [string, ...string[]][] = [];
      for (const [member, list] of Object.entries(genuine)) {
        places.push([member]);
        if (!Array.isArray(list) || list.length === 0) continue;
        places.push([member, "0"]);
        for (const key of Object.keys(list[0] as object)) places.push([member, "0", key]);
      }
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...places),
          fc.oneof(hostileJsonValue(3), fc.constantFrom("not json", "", 1e308, -1, "http://u:p@x/")),
          async (place, value) => {
            const state = structuredClone(genuine) as Record<string, unknown>;
            let parent: Record<string, unknown> = state;
            for (const key of place.slice(0, -1)) parent = parent[key] as Record<string, unknown>;
            Object.defineProperty(parent, place.at(-1) as string, {
              value,
              enumerable: true,
              writable: true,
            });
            const file = join(dir, `hostile-${n++}.json`);
            write(file, state);
            let running: Awaited<ReturnType<typeof launchSandbox>> | undefined;
            try {
              running = await launchSandbox({
                port: 0,
                credentials: CREDENTIALS,
                stateFile: file,
                log: () => {},
              });
            } catch (error) {
              expect(error).toBeInstanceOf(StateFileError);
              expect((error as Error).message).not.toMatch(/CANARY|canary@/);
              return;
            }
            try {
              for (const path of ["/_sandbox/clock", "/_sandbox/deliveries", "/_sandbox/receivers"]) {
                const res = await fetch(`${running.url}${path}`);
                await res.arrayBuffer();
                expect(res.status, path).toBe(200);
              }
              const advance = await fetch(`${running.url}/_sandbox/clock/advance`, {
                method: "POST",
                headers: { "content-type": "application/json" },
                body: '{"duration":"P8D"}',
              });
              await advance.arrayBuffer();
              expect(advance.status).toBe(200);
            } finally {
              await running.close();
            }
            assertPrototypesUntouched(snapshot);
          },
        ),
        { numRuns: 60 },
      );
    },
  );

  it("never parses a first line longer than a header, nor a saved delivery body nested past the limit", async () => {
    // A first line of 20 MB of nested arrays: parsed, it runs a 64 MB heap out of memory.
    const long = join(dir, "long-header.json");
    writeFileSync(long, `${"[".repeat(10_000_000)}${"]".repeat(10_000_000)}\n{}\n`);
    const script = `
      const { readState } = await import(${JSON.stringify(join(process.cwd(), "sandbox/state/file.ts"))});
      try { readState(${JSON.stringify(long)}); console.log("read"); } catch (e) { console.log(e.message); }`;
    const out = execFileSync(
      process.execPath,
      ["--max-old-space-size=64", "--import", "tsx", "--input-type=module", "-e", script],
      { encoding: "utf8" },
    );
    expect(out).toContain("its first line is not the state header");
    // A delivery whose body nests past what the sandbox writes is refused with the file, by place.
    const state = structuredClone(genuine) as { deliveries: { body: string }[] };
    const [first] = state.deliveries;
    if (!first) throw new Error("the genuine state has no delivery");
    first.body = `{"a":${"[".repeat(100)}${"]".repeat(100)}}`;
    const file = join(dir, "deep-body.json");
    write(file, state);
    await expect(launchSandbox({ port: 0, stateFile: file })).rejects.toThrow(/at \/deliveries\/0\)/);
  });

  it("restored past the record budget, keeps no timer of a record it forgot", async () => {
    const file = join(dir, "over-budget.json");
    const first = await startTestSandbox({ stateFile: file });
    // Pending journeys: each verification waits on a timer of its own.
    for (let i = 0; i < 6; i++)
      await first.client.POST("/api/v2/send_text", { body: { reference: `over sandbox-pending-${i}` } });
    await first.running.close();
    const again = await startTestSandbox({ stateFile: file, maxRecords: 2 });
    try {
      const records = again.running.sandbox.biometric.records;
      expect(records.size).toBe(2);
      const orphans = again.running.sandbox.clock
        .pending()
        .filter((t) => t.kind !== "delivery" && !records.has(t.ref));
      expect(orphans).toEqual([]);
    } finally {
      await again.running.close();
    }
  });

  it("writes through no symlink planted at its temporary file's name", async () => {
    const file = join(dir, "planted.json");
    const victim = join(dir, "victim.txt");
    writeFileSync(victim, "untouched");
    symlinkSync(victim, `${file}.${process.pid}.tmp`);
    const sbx = await startTestSandbox({ stateFile: file });
    await sbx.client.POST("/api/v2/send_text", { body: { reference: "planted" } });
    await sbx.running.close();
    expect(readFileSync(victim, "utf8")).toBe("untouched");
    expect(lstatSync(file).isSymbolicLink()).toBe(false);
    expect(readFileSync(file, "utf8")).toMatch(/^\{"format":"idv-sandbox-state"/);
  });

  it("refuses a workflow receiver with credentials: workflow deliveries carry none", async () => {
    const state = structuredClone(genuine) as { receivers: { kind: string }[] };
    (state.receivers[0] as { kind: string }).kind = "workflow";
    const file = join(dir, "workflow-auth.json");
    write(file, state);
    await expect(launchSandbox({ port: 0, stateFile: file })).rejects.toThrow(/at \/receivers\/0\)/);
  });

  it("refuses a file nested deeper than the sandbox writes, before parsing it", async () => {
    const file = join(dir, "deep.json");
    const depth = 2_000_000;
    // Written by hand: JSON.stringify of a value this deep would overflow the stack.
    const data = `{"clock_offset_ms":0,"deep":${"[".repeat(depth)}${"]".repeat(depth)}}`;
    writeFileSync(
      file,
      `${JSON.stringify({ format: "idv-sandbox-state", version: 1, sha256: digest(data) })}\n${data}\n`,
    );
    await expect(launchSandbox({ port: 0, stateFile: file })).rejects.toThrow(/nests deeper than 64 levels/);
  });

  it("refuses a file larger than any the sandbox writes, unread", async () => {
    const file = join(dir, "huge.json");
    writeFileSync(file, "");
    truncateSync(file, 300 * 1024 * 1024);
    await expect(launchSandbox({ port: 0, stateFile: file })).rejects.toThrow(/larger than 256 MiB/);
  });
});
