// What the sandbox can reach, it can save and start from again: the --state check accepts every
// state the sandbox writes (a clock at its end, timers past it, any credentials the CLI or the
// control API took), the CLI takes only credentials the state check takes, and a --state that is
// not a regular file is refused at once rather than waited on.
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";
import { MAX_VIRTUAL_TIME } from "../../sandbox/clock/clock.js";
import { type ReceiverAuth, receiverAuthProblem } from "../../sandbox/deliveries/queue.js";
import { Sandbox } from "../../sandbox/sandbox.js";
import { parseWebhookAuth } from "../../sandbox/start.js";
import { readState, restoreState, snapshot, writeState } from "../../sandbox/state/file.js";
import { stateProblem } from "../../sandbox/state/shape.js";
import { BIOMETRIC } from "../../sandbox/products/biometric/biometric.js";

const REAL = Date.UTC(2026, 10, 25);
const DAY = 86_400_000;

/** Characters that credentials are made of, and those that break them. */
const credential = fc.string({
  unit: fc.constantFrom(..."aZ09-._~+/=: é\u0000\u007f\u00ff\u{1F600}\ud800\t".split(/(?:)/u)),
  minLength: 0,
  maxLength: 12,
});

const auth: fc.Arbitrary<ReceiverAuth> = fc.oneof(
  credential.map((token) => ({ scheme: "bearer" as const, token })),
  fc
    .tuple(credential, credential)
    .map(([username, password]) => ({ scheme: "basic" as const, username, password })),
);

type Op =
  | { op: "create"; journey: "pass" | "pending" | "pending-error" | "error" | null }
  | { op: "advance"; ms: number }
  | { op: "toEnd"; before: number }
  | { op: "receiver"; auth: ReceiverAuth }
  | { op: "complete" }
  | { op: "download" };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constant("create" as const),
    journey: fc.constantFrom("pass", "pending", "pending-error", "error", null),
  }),
  fc.record({ op: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 9 * DAY }) }),
  fc.record({ op: fc.constant("toEnd" as const), before: fc.integer({ min: 0, max: 2 * DAY }) }),
  fc.record({ op: fc.constant("receiver" as const), auth }),
  fc.record({ op: fc.constant("complete" as const) }),
  fc.record({ op: fc.constant("download" as const) }),
);

/** A sandbox whose real time stands still; its deliveries wait (the clock sends nothing while stopped between ops). */
const fresh = () => new Sandbox({ credentials: { apiKey: "k", secret: "s" }, realNow: () => REAL });

async function reach(ops: Op[]): Promise<Sandbox> {
  const sandbox = fresh();
  for (const o of ops) {
    const last = [...sandbox.biometric.records.values()].at(-1);
    if (o.op === "create") {
      const r = sandbox.biometric.create({
        reference: "r",
        sendSms: false,
        ...(o.journey ? { journey: o.journey } : {}),
      });
      sandbox.records.put(BIOMETRIC, r.transaction_id, r);
    } else if (o.op === "advance") {
      if (sandbox.clock.now() + o.ms <= MAX_VIRTUAL_TIME) await sandbox.advance(o.ms);
    } else if (o.op === "toEnd") {
      const to = MAX_VIRTUAL_TIME - o.before;
      if (to > sandbox.clock.now()) await sandbox.advance(to - sandbox.clock.now());
    } else if (o.op === "receiver") {
      // Only what the control API and the CLI let through is registered (receivers at port 9: nothing listens).
      if (receiverAuthProblem(o.auth) === undefined && sandbox.queue.receivers.size < 5)
        sandbox.queue.addReceiver("http://127.0.0.1:9/hook", "events", o.auth);
    } else if (last?.state === "created" || last?.state === "pending") {
      if (o.op === "complete") sandbox.biometric.complete(last.transaction_id, "pass");
    } else if (last?.state === "completed" && o.op === "download") {
      sandbox.biometric.downloaded(last.transaction_id);
    }
  }
  return sandbox;
}

describe("every state the sandbox reaches", () => {
  it("is saved and loaded back equal", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 30 }), async (ops) => {
        const sandbox = await reach(ops);
        await sandbox.queue.close();
        const file = join(mkdtempSync(join(tmpdir(), "sbx-roundtrip-")), "state.json");
        writeState(file, sandbox);
        // A delivery whose attempt was in flight has no timer; the restore gives it one (it is tried
        // again): delivery timers are compared as "every pending delivery has one".
        const withoutDeliveryTimers = (state: ReturnType<typeof snapshot>) =>
          JSON.stringify({ ...state, timers: state.timers.filter((t) => t.kind !== "delivery") });
        const before = withoutDeliveryTimers(snapshot(sandbox));
        await sandbox.close();
        const data = readState(file);
        expect(data).toBeDefined();
        const again = fresh();
        restoreState(again, data as NonNullable<typeof data>);
        const after = snapshot(again);
        expect(withoutDeliveryTimers(after)).toBe(before);
        const timed = new Set(after.timers.filter((t) => t.kind === "delivery").map((t) => t.ref));
        for (const d of after.deliveries) expect(timed.has(d.id)).toBe(d.status === "pending");
        await again.close();
      }),
      { numRuns: 80 },
    );
  });
});

describe("receiver credentials", () => {
  it("the CLI takes exactly what the state check takes", () => {
    fc.assert(
      fc.property(auth, (a) => {
        const flag = a.scheme === "bearer" ? `bearer:${a.token}` : `basic:${a.username}:${a.password}`;
        let parsed: ReceiverAuth | undefined;
        try {
          parsed = parseWebhookAuth(flag);
        } catch {
          parsed = undefined;
        }
        const state = (x: ReceiverAuth) =>
          stateProblem({
            clock_offset_ms: 0,
            ...Object.fromEntries(
              [
                "timers",
                "ids",
                "biometric",
                "manual",
                "pep",
                "fraud",
                "property",
                "kyb",
                "edd",
                "workflow",
                "deliveries",
              ].map((m) => [m, []]),
            ),
            receivers: [
              { id: "rcv_1", url: "http://127.0.0.1:9/", kind: "events", created_at: "x", auth: x },
            ],
          }) === undefined;
        if (parsed) expect(state(parsed)).toBe(true);
        // The flag cannot say a user name with ":" (its first colon ends it): those aside, what the state takes the CLI takes.
        if (state(a) && !(a.scheme === "basic" && a.username.includes(":"))) expect(parsed).toEqual(a);
      }),
      { numRuns: 2000 },
    );
  });

  it("a token with a space or a character outside ASCII is refused by the CLI, exit 2, the value not echoed", () => {
    for (const flag of ["bearer:tok en", "bearer:t\u00f6ken-canary"]) {
      const run = spawnSync(
        process.execPath,
        [
          "--import",
          "tsx",
          fromRoot("sandbox/cli.ts"),
          "--port",
          "0",
          "--webhook-url",
          "http://127.0.0.1:9/",
          "--webhook-auth",
          flag,
        ],
        { encoding: "utf8", cwd: fromRoot(), timeout: 20_000 },
      );
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/--webhook-auth: the token must be/);
      expect(run.stderr).not.toContain("canary");
      expect(run.stderr).not.toContain("tok en");
    }
  });
});

describe("--state naming something that is not a regular file", () => {
  it("a FIFO is refused at once with exit 2 and one line naming it", () => {
    const fifo = join(mkdtempSync(join(tmpdir(), "sbx-fifo-")), "state.fifo");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    const run = spawnSync(
      process.execPath,
      ["--import", "tsx", fromRoot("sandbox/cli.ts"), "--port", "0", "--state", fifo],
      {
        encoding: "utf8",
        cwd: fromRoot(),
        timeout: 20_000,
      },
    );
    expect(run.signal).toBeNull();
    expect(run.status).toBe(2);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toContain(fifo);
    expect(run.stderr).toMatch(/is not a regular file/);
  });

  it("a directory is refused too", () => {
    const dir = mkdtempSync(join(tmpdir(), "sbx-dir-"));
    expect(() => readState(dir)).toThrow(/is not a regular file/);
  });
});

describe("ids in the state file", () => {
  it("a delivery or receiver id given twice is refused, naming the second", () => {
    const empty = Object.fromEntries(
      ["timers", "ids", "biometric", "manual", "pep", "fraud", "property", "kyb", "edd", "workflow"].map(
        (m) => [m, []],
      ),
    );
    const receiver = (id: string) => ({ id, url: "http://127.0.0.1:9/", kind: "events", created_at: "x" });
    const delivery = (id: string) => ({
      id,
      receiver_id: "rcv_1",
      channel: "biometricWebhook",
      event: "created",
      subject: "s",
      created_at: "x",
      status: "pending",
      attempts: [],
      next_attempt_at: 0,
      headers: {},
      body: "{}",
    });
    const state = (receivers: string[], deliveries: string[]) => ({
      clock_offset_ms: 0,
      ...empty,
      receivers: receivers.map(receiver),
      deliveries: deliveries.map(delivery),
    });
    expect(stateProblem(state(["rcv_1", "rcv_2"], ["dlv_1", "dlv_2"]))).toBeUndefined();
    expect(stateProblem(state(["rcv_1", "rcv_2"], ["dlv_1", "dlv_2", "dlv_1"]))).toBe("/deliveries/2/id");
    expect(stateProblem(state(["rcv_1", "rcv_1"], ["dlv_1"]))).toBe("/receivers/1/id");
  });
});
