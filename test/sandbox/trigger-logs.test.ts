// The trigger's answer carries the payload it sent (the caller's own values among them): that
// answer goes to the caller alone. No log line of the sandbox, in process or over HTTP, nor anything
// it writes to stdout or stderr, ever holds one of those values, whether the event was sent,
// refused by the contract, or answered by receivers that fail.
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  createSandbox,
  SandboxControlError,
  type InProcessSandbox,
  type SandboxTriggerEvent,
} from "../../sandbox/index.js";
import { startRecorder, startTestSandbox } from "../support/sandbox.js";

/** In every value put into a payload: a line holding any part of the value around it holds it too. */
const MARK = "Qx7pii";

/** A value a caller could send: any text around the mark (escaped or encoded, the mark stays itself). */
const value = fc
  .tuple(fc.string({ unit: "binary", maxLength: 20 }), fc.string({ unit: "binary", maxLength: 20 }))
  .map(([before, after]) => `${before}${MARK}${after}`);

/** Members of each event's payload set to a caller's value; `verification.status` breaks the schema. */
const triggers = fc.array(
  fc.oneof(
    fc.record({
      event: fc.constantFrom("completed", "updated", "created"),
      member: fc.constantFrom("reference", "data.personal.firstname", "external_id", "verification.status"),
      value,
    }),
    fc.record({ event: fc.constant("case.completed"), member: fc.constant("external_id"), value }),
    fc.record({ event: fc.constant("test"), member: fc.constant("message"), value }),
  ),
  { minLength: 1, maxLength: 3 },
);

/** What the process writes to stdout and stderr, and through console, while a test runs. */
const written: string[] = [];
beforeEach(() => {
  written.length = 0;
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    vi.spyOn(stream, "write").mockImplementation((chunk: unknown, ...rest: unknown[]) => {
      written.push(String(chunk));
      return write(chunk, ...rest);
    });
  }
  for (const method of ["log", "info", "warn", "error", "debug"] as const)
    vi.spyOn(console, method).mockImplementation(
      (...args: unknown[]) => void written.push(args.map(String).join(" ")),
    );
});
afterEach(() => vi.restoreAllMocks());

/** Send each trigger; a refusal (the contract's 400) is an answer like any other. */
async function sendAll(
  trigger: (event: SandboxTriggerEvent, set: Record<string, unknown>) => Promise<unknown>,
  list: { event: SandboxTriggerEvent; member: string; value: string }[],
): Promise<void> {
  for (const { event, member, value } of list) {
    try {
      await trigger(event, { [member]: value });
    } catch (error) {
      if (!(error instanceof SandboxControlError)) throw error;
    }
  }
}

/** The lines that hold the mark (none, when no value was logged). */
const leaked = (lines: string[]) => lines.filter((line) => line.includes(MARK));

describe("a trigger's payload values", () => {
  let sandbox: InProcessSandbox;
  const lines: string[] = [];
  beforeAll(async () => {
    sandbox = await createSandbox({ log: (line) => lines.push(line), deliveryTimeoutMs: 1000 });
    await sandbox.receivers.add(() => new Response("no", { status: 500 }));
    await sandbox.receivers.add(() => {
      throw new Error(`a handler that fails ${MARK}`.replace(MARK, ""));
    });
    await sandbox.control.addReceiver({ kind: "workflow", url: "http://127.0.0.1:9/" });
  });
  afterAll(() => sandbox.close());

  it("reach no log line of createSandbox(), nor stdout or stderr", async () => {
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(triggers, async (list) => {
        await sendAll(async (event, set) => {
          const sent = await sandbox.control.trigger(event, { set });
          // The answer does hold them: it is the caller's own view of what was sent.
          expect(JSON.stringify(sent.payload)).toContain(MARK);
          answered++;
        }, list);
        await sandbox.control.settled();
        await sandbox.control.deliveries();
        expect(leaked(lines)).toEqual([]);
        expect(leaked(written)).toEqual([]);
      }),
      { numRuns: 60 },
    );
    // Retries due later are attempted, and failed, too.
    await sandbox.control.advance("PT2H");
    expect(answered).toBeGreaterThan(0);
    expect(lines.some((line) => line.startsWith("POST /_sandbox/trigger → 201"))).toBe(true);
    expect(lines.some((line) => line.startsWith("POST /_sandbox/trigger → 400"))).toBe(true);
    expect(leaked(lines)).toEqual([]);
    expect(leaked(written)).toEqual([]);
  });

  it("reach no log line of startSandbox() over HTTP, nor stdout or stderr", async () => {
    const sbx = await startTestSandbox();
    const failing = await startRecorder(() => 500);
    try {
      await sbx.control.addReceiver({ url: failing.url, auth: { scheme: "bearer", token: "t" } });
      await fc.assert(
        fc.asyncProperty(triggers, async (list) => {
          await sendAll((event, set) => sbx.control.trigger(event, { set }), list);
          await sbx.control.settled();
          expect(leaked(sbx.lines)).toEqual([]);
          expect(leaked(written)).toEqual([]);
        }),
        { numRuns: 20 },
      );
      await sbx.control.advance("PT2H");
      expect(sbx.lines.length).toBeGreaterThan(0);
      expect(leaked(sbx.lines)).toEqual([]);
      expect(leaked(written)).toEqual([]);
    } finally {
      await sbx.running.close();
      await failing.close();
    }
  });
});
