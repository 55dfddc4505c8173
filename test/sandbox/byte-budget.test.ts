// One byte budget covers what the sandbox keeps (records with their assets' metadata, deliveries,
// uploaded bytes, the timers they hold), counted as what the --state file holds of them: after any
// sequence of large requests the bytes kept stay within it, and the state saved loads back equal.
import { spawn } from "node:child_process";
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";
import { jsonBytes, jsonStringBytes, MAX_KEPT_BYTES } from "../../sandbox/state/byte-budget.js";
import { MAX_RECEIVERS } from "../../sandbox/deliveries/queue.js";
import { BIOMETRIC, biometricRecordBytes } from "../../sandbox/products/biometric/biometric.js";
import { EDD, eddCase } from "../../sandbox/products/edd.js";
import { Sandbox } from "../../sandbox/sandbox.js";
import {
  MAX_STATE_FILE_BYTES,
  readState,
  restoreState,
  snapshot,
  writeState,
} from "../../sandbox/state/file.js";

const BUDGET = 256 * 1024;

type Step =
  | { kind: "bio"; reference: string; lastname: string }
  | { kind: "edd"; comment: string; uploads: { name: string; size: number }[] }
  | { kind: "edit"; notes: string };

/** Text of a chosen length, of characters that cost from 1 to 6 bytes of JSON each. */
const text = (max: number) =>
  fc
    .tuple(fc.integer({ min: 0, max }), fc.constantFrom("a", '"', "\u0001", "é", "\u{1F600}", "\\"))
    .map(([n, c]) => c.repeat(Math.max(0, Math.floor(n / c.length))));

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("bio" as const), reference: text(40_000), lastname: text(300) }),
  fc.record({
    kind: fc.constant("edd" as const),
    comment: text(20_000),
    uploads: fc.array(fc.record({ name: text(255), size: fc.integer({ min: 0, max: 20_000 }) }), {
      maxLength: 5,
    }),
  }),
  fc.record({ kind: fc.constant("edit" as const), notes: text(30_000) }),
);

/**
 * A sandbox with a small budget and two receivers on a port nothing listens on. The clock is stopped,
 * so no retry falls due; a first attempt ends only after the checks, which run in the same turn.
 */
function sandboxWithin(budget: number): Sandbox {
  const sandbox = new Sandbox({ credentials: { apiKey: "k", secret: "s" }, maxKeptBytes: budget });
  sandbox.clock.stop();
  sandbox.queue.addReceiver("http://127.0.0.1:9/a", "events", { scheme: "bearer", token: "t0k3n" });
  sandbox.queue.addReceiver("http://127.0.0.1:9/b", "events", {
    scheme: "basic",
    username: "u",
    password: "p",
  });
  return sandbox;
}

/** Do what the service does for each step (the same calls its handlers make). */
function apply(sandbox: Sandbox, steps: Step[]): void {
  for (const s of steps) {
    if (s.kind === "bio") {
      const record = sandbox.biometric.create({
        reference: s.reference,
        lastname: s.lastname,
        sendSms: false,
      });
      sandbox.records.put(BIOMETRIC, record.transaction_id, record);
      sandbox.biometric.complete(record.transaction_id, "pass");
    } else if (s.kind === "edit") {
      const last = [...sandbox.biometric.records.values()].at(-1);
      if (!last || last.state !== "completed") continue;
      sandbox.biometric.edit(last.transaction_id, s.notes);
      sandbox.records.put(BIOMETRIC, last.transaction_id, last);
    } else {
      const id = sandbox.nextId("edd");
      const record = eddCase(
        id,
        { comment: s.comment, entity_type: "company", email: "a@b.c" },
        sandbox.clock.now(),
      );
      sandbox.records.put(EDD, id, record);
      for (const upload of s.uploads) {
        const assetId = sandbox.nextId("asset");
        sandbox.assetFiles.put(assetId, Buffer.alloc(upload.size), "application/pdf", upload.name);
        record.assets.push({ id: assetId, file_name: upload.name, download_url: `/x/${assetId}` });
        sandbox.records.put(EDD, id, record);
      }
      sandbox.emitEddCompleted(record);
    }
  }
}

describe("the byte budget", () => {
  it("holds whatever is kept, counted as at least what the state file holds of it, and the state loads back equal", () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 25 }), (steps) => {
        const sandbox = sandboxWithin(BUDGET);
        apply(sandbox, steps);
        expect(sandbox.budget.used).toBeLessThanOrEqual(BUDGET);
        const state = snapshot(sandbox);
        const saved =
          jsonBytes(state.biometric) +
          jsonBytes(state.edd) +
          jsonBytes(state.deliveries) +
          jsonBytes(state.timers);
        expect(saved).toBeLessThanOrEqual(sandbox.budget.used + 1024);
        const file = join(mkdtempSync(join(tmpdir(), "sbx-budget-")), "state.json");
        writeState(file, sandbox);
        const data = readState(file);
        expect(data).toBeDefined();
        const again = sandboxWithin(BUDGET);
        again.queue.receivers.clear();
        restoreState(again, data as NonNullable<typeof data>);
        expect(JSON.stringify(snapshot(again))).toBe(JSON.stringify(state));
        void sandbox.close();
        void again.close();
      }),
      { numRuns: 60 },
    );
  });

  it("is below the state file's read limit with room for the receivers and the encoding", () => {
    // A receiver's URL and credentials come from control requests of at most 64 KiB, JSON-escaped at most 6 times.
    const receivers = MAX_RECEIVERS * 64 * 1024 * 6;
    expect(MAX_KEPT_BYTES + receivers).toBeLessThan(MAX_STATE_FILE_BYTES / 2);
  });
});

describe("a sandbox with a small heap", () => {
  it("survives many 11 MB requests with a receiver and --state, and starts again from its state", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sbx-heap-"));
    const file = join(dir, "state.json");
    const start = () => {
      const child = spawn(
        process.execPath,
        [
          "--max-old-space-size=320",
          "--import",
          "tsx",
          fromRoot("sandbox/cli.ts"),
          ...["--port", "0", "--key", "k", "--secret", "s", "--state", file],
          ...["--webhook-url", "http://127.0.0.1:9/hook"],
        ],
        { cwd: fromRoot(), stdio: ["ignore", "pipe", "pipe"] },
      );
      let stderr = "";
      child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
      const url = new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (c: Buffer) => {
          out += c.toString();
          const m = /listening on (http:\/\/\S+?) /.exec(out);
          if (m) resolve(m[1] as string);
        });
        child.once("exit", (code) => reject(new Error(`exited ${code}: ${stderr.slice(0, 500)}`)));
      });
      return { child, url, stderr: () => stderr };
    };
    const first = start();
    const url = await first.url;
    const reference = "r".repeat(11 * 1000 * 1000);
    for (let i = 0; i < 30; i++) {
      const res = await fetch(`${url}/api/v2/send_text`, {
        method: "POST",
        headers: { "svc-api-key": "k", "svc-secret": "s", "content-type": "application/json" },
        body: JSON.stringify({ reference }),
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    first.child.kill("SIGTERM");
    const code = await new Promise((resolve) => first.child.once("exit", resolve));
    expect(first.stderr()).toBe("");
    expect(code).toBe(0);
    expect(statSync(file).size).toBeLessThan(MAX_KEPT_BYTES + 1024 * 1024);
    const second = start();
    const again = await second.url;
    expect((await fetch(`${again}/_sandbox/clock`)).status).toBe(200);
    second.child.kill("SIGTERM");
    await new Promise((resolve) => second.child.once("exit", resolve));
  }, 240_000);
});

describe("jsonStringBytes", () => {
  it("counts a string's JSON as jsonBytes does, whatever it holds", () => {
    const texts = fc.oneof(
      fc.string(),
      fc.string({ unit: "binary" }),
      fc.string({
        unit: fc.constantFrom('"', "\\", "a", "é", "\u2028", "\u0000", "\u001f", "\ud83d", "\ude00"),
      }),
      fc.json(),
    );
    fc.assert(fc.property(texts, (text) => jsonStringBytes(text) === jsonBytes(text)));
  });

  it("counts a JSON text's escapes", () => {
    const text = JSON.stringify({ a: 'say "hi"\\', b: "é\n" });
    expect(jsonStringBytes(text)).toBe(Buffer.byteLength(JSON.stringify(text), "utf8"));
  });
});

describe("a biometric record's bytes", () => {
  it("are its JSON's, its verification measured once and replaced (never changed) after", () => {
    const sandbox = new Sandbox({ credentials: { apiKey: "k", secret: "s" }, journeyDelayMs: 0 });
    const record = sandbox.biometric.create({
      reference: "r",
      firstname: "Mere",
      lastname: "Tane",
      contact_phone: "64211234567",
      sendSms: false,
    });
    expect(biometricRecordBytes(record)).toBe(jsonBytes(record));
    sandbox.biometric.complete(record.transaction_id, "review");
    expect(record.verification).not.toBeNull();
    expect(biometricRecordBytes(record)).toBe(jsonBytes(record));
    expect(biometricRecordBytes(record)).toBe(jsonBytes(record));
    sandbox.biometric.review(record.transaction_id, "pass");
    expect(biometricRecordBytes(record)).toBe(jsonBytes(record));
    fc.assert(
      fc.property(fc.object(), (verification) => {
        const other = { ...record, verification };
        return biometricRecordBytes(other) === jsonBytes(other);
      }),
    );
    void sandbox.close();
  });
});
