// POST /_sandbox/trigger, the control client's trigger() and `idv-sandbox trigger`: one chosen event
// of the contract, about a record or one made for it, overrides checked against the event's schema
// (refused, and nothing sent, when they break it), delivered as any other event.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createConformanceChecker, exchangeFromHar } from "../../conformance/index.js";
import { fromRoot } from "../../scripts/lib/paths.js";
import { createSandboxControl, SandboxControlError } from "../../sandbox/index.js";
import { memberPath, parseAssignment, setMember } from "../../sandbox/control/trigger-members.js";
import { TRIGGER_EVENTS } from "../../sandbox/control/trigger.js";
import { parseWebhook } from "../../src/webhooks/index.js";
import { recordingFetch } from "../support/har-recorder.js";
import { cliLaunch } from "../support/cli-command.js";
import { startRecorder, startTestSandbox } from "../support/sandbox.js";

let sbx: Awaited<ReturnType<typeof startTestSandbox>>;
let events: Awaited<ReturnType<typeof startRecorder>>;
let cases: Awaited<ReturnType<typeof startRecorder>>;
beforeAll(async () => {
  sbx = await startTestSandbox();
  events = await startRecorder();
  cases = await startRecorder();
  await sbx.control.addReceiver({ url: events.url, auth: { scheme: "bearer", token: "trigger-token" } });
  await sbx.control.addReceiver({ url: cases.url, kind: "workflow" });
});
afterAll(async () => {
  await sbx.running.close();
  await events.close();
  await cases.close();
});
beforeEach(async () => {
  await sbx.control.reset();
  events.received.length = 0;
  cases.received.length = 0;
});

/** The status and message a refused control request gave. */
const refusal = (pending: Promise<unknown>) =>
  pending.then(
    () => ({ status: 0, message: "" }),
    (e: unknown) => {
      if (!(e instanceof SandboxControlError)) throw e;
      return { status: e.status, message: e.message };
    },
  );

describe("a record made for a refused trigger", () => {
  it("leaves no place behind: refused triggers never push a live record out", async () => {
    const small = await startTestSandbox({ maxRecords: 2 });
    try {
      const { data } = await small.client.POST("/api/v2/send_text", { body: { reference: "live" } });
      const id = data?.transaction_id as string;
      for (let i = 0; i < 5; i++) {
        const refused = await refusal(
          small.control.trigger("completed", { set: [{ member: "verification.status", value: "maybe" }] }),
        );
        expect(refused.status).toBe(400);
      }
      expect((await small.control.biometric.get(id)).state).toBe("created");
    } finally {
      await small.running.close();
    }
  });
});

describe("trigger", () => {
  it("sends every event of the contract about a record made for it, each as the contract says", async () => {
    expect(TRIGGER_EVENTS.map((e) => e.event)).toEqual([
      "created",
      "completed",
      "updated",
      "archived",
      "error",
      "pending",
      "test",
      "case_completed",
      "case.completed",
    ]);
    const made: Record<string, string | null> = {};
    for (const { event } of TRIGGER_EVENTS) {
      const sent = await sbx.control.trigger(event);
      made[event] = sent.made?.kind ?? null;
      expect(sent.receivers).toBe(1);
    }
    expect(made).toEqual({
      created: "biometric_verification",
      completed: "biometric_verification",
      updated: "biometric_verification",
      archived: "biometric_verification",
      error: "biometric_verification",
      pending: "biometric_verification",
      test: null,
      case_completed: "edd_case",
      "case.completed": "workflow_case",
    });
    await sbx.control.settled();
    // One delivery each, and only those: a record made for an event sends no event of its own.
    expect(events.received.map((r) => JSON.parse(r.body).event)).toEqual(
      TRIGGER_EVENTS.filter((e) => e.channel !== "workflowCase").map((e) => e.event),
    );
    expect(cases.received.map((r) => r.headers["x-workflow-event-type"])).toEqual(["case.completed"]);
    // Delivered as any other: credentials, headers, and each body what the contract says.
    for (const r of events.received) expect(r.headers.authorization).toBe("Bearer trigger-token");
    for (const r of [...events.received, ...cases.received]) {
      const parsed = parseWebhook(r.body, r.headers as Record<string, string>);
      expect(parsed.error).toBeUndefined();
    }
    const listed = await sbx.control.deliveries();
    expect(listed.map((d) => d.event).sort()).toEqual(TRIGGER_EVENTS.map((e) => e.event).sort());
    expect(listed.every((d) => d.status === "delivered")).toBe(true);
  });

  it("sends an event about an existing record, with values overridden by pointer or dotted path", async () => {
    const { data } = await sbx.client.POST("/api/v2/send_text", { body: { reference: "trig-1" } });
    const id = data?.transaction_id as string;
    await sbx.control.settled();
    const sent = await sbx.control.trigger("completed", {
      subject: id,
      set: [
        { member: "verification.status", value: "fail" },
        { member: "/message", value: "a chosen message" },
        { member: "/verification/result/overall", value: false },
      ],
    });
    expect(sent).toMatchObject({ event: "completed", subject: id, made: null, receivers: 1 });
    await sbx.control.settled();
    const [completed] = await sbx.control.deliveries({ subject: id, event: "completed" });
    expect(completed?.payload).toMatchObject({
      event: "completed",
      reference: "trig-1",
      transaction_id: id,
      message: "a chosen message",
      verification: { status: "fail", result: { overall: false } },
    });
    // The event moves no record: the verification is still created.
    expect((await sbx.control.biometric.get(id)).state).toBe("created");
    // A record's form of an EDD case: by its id.
    const edd = await sbx.control.trigger("case_completed");
    const again = await sbx.control.trigger("case_completed", { subject: String(edd.made?.id) });
    expect(again.subject).toBe(edd.subject);
  });

  it("refuses an override that breaks the event's schema with the member and the rule, and sends nothing", async () => {
    const recorder = recordingFetch();
    const control = createSandboxControl(sbx.running.url, { fetch: recorder.fetch });
    const broken = await refusal(control.trigger("completed", { set: { "verification.status": "maybe" } }));
    expect(broken.status).toBe(400);
    expect(broken.message).toMatch(
      /payload \/verification\/status must be equal to one of the allowed values/,
    );
    expect(broken.message).toMatch(/nothing was sent/);
    // The record made for it is forgotten with it: nothing is left behind.
    const wrongType = await refusal(control.trigger("case.completed", { set: { case_id: "seven" } }));
    expect(wrongType.message).toMatch(/payload \/case_id must be integer/);
    const otherEvent = await refusal(control.trigger("created", { set: { event: "completed" } }));
    expect(otherEvent.message).toMatch(/payload \/event must be "created"/);
    // @ts-expect-error an event the contract does not have: refused at run time too
    const unknown = await refusal(control.trigger("charge.succeeded"));
    expect(unknown.status).toBe(400);
    expect(unknown.message).toMatch(
      /its events are created, completed, updated, archived, error, pending, test, case_completed, case\.completed/,
    );
    expect((await refusal(control.trigger("completed", { subject: "nope" }))).status).toBe(404);
    expect((await refusal(control.trigger("test", { subject: "x" }))).status).toBe(400);
    await control.settled();
    expect(events.received).toEqual([]);
    expect(cases.received).toEqual([]);
    expect(await control.deliveries()).toEqual([]);
    // Every exchange, refusals included, is as the control API's contract says.
    await control.trigger("pending", { set: { message: "fine" } });
    const spec = JSON.parse(readFileSync(fromRoot("generated/sandbox-control.json"), "utf8"));
    const checker = createConformanceChecker({ spec });
    const failing = recorder.entries
      .map((entry, i) => checker.checkExchange(exchangeFromHar(entry, i)))
      .filter((result) => !result.ok);
    expect(failing).toEqual([]);
  });

  it("a triggered event is retried as any other, on the virtual clock", async () => {
    let status = 503;
    const flaky = await startRecorder(() => status);
    const own = await startTestSandbox();
    try {
      await own.control.addReceiver({ url: flaky.url });
      const sent = await own.control.trigger("archived");
      await own.control.settled();
      const [first] = await own.control.deliveries({ subject: sent.subject });
      expect(first).toMatchObject({ event: "archived", status: "pending", attempts: [{ status: 503 }] });
      expect(first?.next_attempt_at).not.toBeNull();
      status = 200;
      await own.control.advance("PT2M");
      const [again] = await own.control.deliveries({ subject: sent.subject });
      expect(again?.status).toBe("delivered");
      expect(again?.attempts.map((a) => a.status)).toEqual([503, 200]);
      expect(flaky.received.length).toBe(2);
    } finally {
      await own.running.close();
      await flaky.close();
    }
  });

  it("a member named __proto__ or constructor is refused, and no override reaches a prototype", async () => {
    for (const member of [
      "__proto__.polluted",
      "/constructor/prototype/polluted",
      "verification.__proto__",
    ]) {
      const refused = await refusal(sbx.control.trigger("created", { set: [{ member, value: 1 }] }));
      expect(refused.status).toBe(400);
      expect(refused.message).toMatch(/\/set\/0\/member: names __proto__, constructor or prototype/);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("override members", () => {
  const name = fc.oneof(
    fc.constantFrom(
      "__proto__",
      "constructor",
      "prototype",
      "toString",
      "hasOwnProperty",
      "0",
      "1",
      "a",
      "~",
      "/",
    ),
    fc.string({ maxLength: 8 }),
  );
  it("whatever the names, setting them never touches a prototype and never throws but an Error", () => {
    fc.assert(
      fc.property(
        fc.array(name, { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        fc.jsonValue(),
        (names, pointer, value) => {
          const member = pointer ? `/${names.join("/")}` : names.join(".");
          const payload: Record<string, unknown> = { event: "created", verification: null, list: [1, 2] };
          try {
            setMember(payload, memberPath(member), value);
          } catch (e) {
            expect(e).toBeInstanceOf(Error);
          }
          expect(Object.getPrototypeOf(payload)).toBe(Object.prototype);
          for (const key of ["polluted", "0", "a", "toString"])
            expect(Object.hasOwn(Object.prototype, key) ? key : undefined).toBe(
              key === "toString" ? key : undefined,
            );
          expect(({} as Record<string, unknown>).a).toBeUndefined();
          // What is set is JSON, and reads back as set.
          expect(() => JSON.parse(JSON.stringify(payload))).not.toThrow();
        },
      ),
    );
  });

  it("reads the command line's member=value: JSON when it parses, else a string", () => {
    expect(parseAssignment("verification.status=fail")).toEqual({
      member: "verification.status",
      value: "fail",
    });
    expect(parseAssignment("/case_id=7")).toEqual({ member: "/case_id", value: 7 });
    expect(parseAssignment("message=null")).toEqual({ member: "message", value: null });
    expect(parseAssignment('reference="7"')).toEqual({ member: "reference", value: "7" });
    expect(parseAssignment("a=b=c")).toEqual({ member: "a", value: "b=c" });
    expect(() => parseAssignment("=x")).toThrow(/member=value/);
    expect(() => parseAssignment("novalue")).toThrow(/member=value/);
    expect(memberPath("/a~1b/c~0d")).toEqual(["a/b", "c~d"]);
    expect(() => memberPath("/a~2")).toThrow(/JSON Pointer/);
    expect(() => memberPath("a..b")).toThrow(/empty name/);
  });
});

/** `idv-sandbox trigger`, run apart (the sandbox it talks to answers from this process). */
function cli(args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  const run = cliLaunch("idv-sandbox", ["trigger", ...args]);
  return new Promise((resolve) => {
    execFile(
      run.command,
      run.args,
      { cwd: fromRoot(), env: run.env, encoding: "utf8", timeout: 20_000 },
      (error, stdout, stderr) => resolve({ status: error ? Number(error.code ?? -1) : 0, stdout, stderr }),
    );
  });
}

describe("idv-sandbox trigger", () => {
  it("sends the event with the values set, and says what it sent", async () => {
    const run = await cli([
      "case_completed",
      "--url",
      sbx.running.url,
      "--set",
      "reference=EDD-REF-7",
      "--set",
      "/message=null",
      "--json",
    ]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const shown = JSON.parse(run.stdout);
    expect(shown).toMatchObject({ event: "case_completed", made: { kind: "edd_case" }, receivers: 1 });
    expect(shown.payload).toBeUndefined();
    await sbx.control.settled();
    expect(events.received.map((r) => JSON.parse(r.body))).toMatchObject([
      { event: "case_completed", reference: "EDD-REF-7", message: null, transaction_id: shown.subject },
    ]);
    const text = await cli(["test", "--url", sbx.running.url]);
    expect(text.stdout).toBe("Sent test about test to 1 receiver.\n");
  });

  it("an override that breaks the schema: exit 1 with the member and the rule, nothing sent", async () => {
    const run = await cli(["completed", "--url", sbx.running.url, "--set", "verification.status=maybe"]);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(
      /^idv-sandbox: the sandbox refused it \(400\): The completed event would break the contract: payload \/verification\/status must be equal to one of the allowed values; nothing was sent\.\n$/,
    );
    await sbx.control.settled();
    expect(events.received).toEqual([]);
    expect(await sbx.control.deliveries()).toEqual([]);
  });

  it.each([
    [[], "trigger needs an EVENT"],
    [["completed", "created"], "trigger takes one EVENT"],
    [["charge.succeeded"], "EVENT must be one of created, completed"],
    [["completed", "--set", "novalue"], "--set takes member=value"],
    [["completed", "--url", "ftp://x/"], "--url: must use http or https"],
  ])("%j is a usage error: exit 2", async (args, line) => {
    const run = await cli(args);
    expect(run.status).toBe(2);
    expect(run.stderr.split("\n")[0]).toContain(`idv-sandbox: ${line}`);
    expect(run.stderr).toContain("Usage: idv-sandbox trigger EVENT");
  });
});
