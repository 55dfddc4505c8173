// `idv-conformance receiver`: the README's receiver passes every check; receivers with one fault
// each fail exactly the check that names it.
import { execFile } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createReceiver } from "../../examples/webhook-receiver.js";
import type { ActiveResult } from "../../conformance/probe/active-report.js";
import {
  type ReceiverFault,
  startFixtureReceiver,
  TOKEN,
  WORKFLOW_PATH,
} from "./fixtures/probe/receivers.js";
import { runInProcess } from "./fixtures/probe/run-cli.js";

interface JsonReport {
  summary: { requests: number; passed: number; failed: number; warnings: number };
  results: ActiveResult[];
  notes: string[];
}

async function battery(url: string, extra: string[] = []) {
  const run = await runInProcess([
    "receiver",
    `${url}/idv/events`,
    "--auth",
    `bearer:${TOKEN}`,
    "--workflow-url",
    `${url}${WORKFLOW_PATH}`,
    "--format",
    "json",
    ...extra,
  ]);
  return {
    status: run.status,
    report: JSON.parse(run.stdout) as JsonReport,
    stdout: run.stdout,
    stderr: run.stderr,
  };
}

/** The checks that made any finding, violations and warnings apart. */
const checksOf = (report: JsonReport) => ({
  violations: [...new Set(report.results.flatMap((r) => r.violations.map((f) => f.check)))].sort(),
  warnings: [...new Set(report.results.flatMap((r) => r.warnings.map((f) => f.check)))].sort(),
});

describe("the README's receiver", () => {
  const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
  const server = createReceiver({
    credentials: { scheme: "bearer", token: TOKEN },
    workflowPath: WORKFLOW_PATH,
    handle: () => undefined,
  });
  let url = "";
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    warn.mockRestore();
  });

  it("passes every receiver check, without a warning", async () => {
    const { status, report } = await battery(url);
    expect(checksOf(report)).toEqual({ violations: [], warnings: [] });
    expect(status).toBe(0);
    expect(report.notes).toEqual([]);
    // Every event of the contract, the Test button's body, and each case of the battery were sent.
    const cases = report.results.map((r) => r.case);
    expect(cases).toContain("the Test button's body");
    for (const event of ["created", "completed", "updated", "archived", "error", "pending", "case_completed"])
      expect(cases.some((c) => c.startsWith(`example ${event} `))).toBe(true);
    for (const c of [
      "no credentials",
      "wrong credentials",
      "an event type the contract does not have",
      "members the contract does not list",
      "malformed JSON",
      "a 10 MB body",
      "an X-Workflow-Event-Type the contract does not have",
    ])
      expect(cases).toContain(c);
    expect(report.results.find((r) => r.case === "no credentials")?.status).toBe(401);
  }, 60_000);
});

describe("receivers with one fault each fail exactly its check", () => {
  const cases: [ReceiverFault, { violations: string[]; warnings: string[] }][] = [
    ["none", { violations: [], warnings: [] }],
    ["refuses-test-body", { violations: ["acknowledged"], warnings: [] }],
    ["refuses-duplicates", { violations: ["duplicate_acknowledged"], warnings: [] }],
    ["refuses-unknown-events", { violations: ["unknown_event_acknowledged"], warnings: [] }],
    ["refuses-unknown-members", { violations: ["extra_members_acknowledged"], warnings: [] }],
    ["ignores-credentials", { violations: ["credentials_required"], warnings: [] }],
    ["refuses-workflow-events", { violations: ["workflow_acknowledged"], warnings: [] }],
    ["refuses-unknown-workflow-types", { violations: ["workflow_unknown_type_acknowledged"], warnings: [] }],
    ["crashes-on-malformed-json", { violations: ["malformed_json_refused"], warnings: [] }],
    ["dies-on-large-bodies", { violations: ["large_body_survived"], warnings: [] }],
  ];
  it.each(cases)(
    "%s",
    async (fault, expected) => {
      const receiver = await startFixtureReceiver(fault);
      try {
        const { status, report } = await battery(receiver.url);
        expect(checksOf(report)).toEqual(expected);
        expect(status).toBe(expected.violations.length > 0 ? 1 : 0);
      } finally {
        await receiver.close();
      }
    },
    60_000,
  );

  it("acks-after-processing (3 s): time_to_ack warns; past --timeout it fails", async () => {
    const receiver = await startFixtureReceiver("acks-after-processing", 3_000);
    try {
      const slow = await battery(receiver.url);
      expect(checksOf(slow.report)).toEqual({ violations: [], warnings: ["time_to_ack"] });
      expect(slow.status).toBe(0);
      const acked = slow.report.results.filter((r) => r.warnings.length > 0);
      expect(acked.every((r) => r.ms >= 2_900)).toBe(true);
      const timedOut = await battery(receiver.url, ["--timeout", "1000"]);
      expect(checksOf(timedOut.report).violations).toEqual(["time_to_ack"]);
      expect(timedOut.status).toBe(1);
    } finally {
      await receiver.close();
    }
  }, 180_000);
});

describe("the command line", () => {
  it("refuses a bad --auth without echoing it, and a URL that is not http", async () => {
    const bad = await runInProcess(["receiver", "http://127.0.0.1:1/x", "--auth", "digest:s3cr3t-value"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("--auth must be bearer:TOKEN or basic:USER:PASS");
    expect(bad.stderr).not.toContain("s3cr3t-value");
    const ftp = await runInProcess(["receiver", "ftp://127.0.0.1/x"]);
    expect(ftp.status).toBe(2);
    expect(ftp.stderr).toContain("must be an http or https URL");
  });

  it("says when nothing listens at the URL", async () => {
    const receiver = await startFixtureReceiver("none");
    const url = receiver.url;
    await receiver.close();
    const run = await runInProcess(["receiver", `${url}/idv/events`, "--format", "json"]);
    expect(run.status).toBe(1);
    const report = JSON.parse(run.stdout) as JsonReport;
    expect(report.results[0]?.violations[0]?.message).toBe(
      "the connection was refused: nothing listens at this URL",
    );
  });

  it("prints credentials as variables in its reproducers, never their values", async () => {
    const receiver = await startFixtureReceiver("refuses-test-body");
    try {
      const { report, stdout } = await battery(receiver.url);
      const failed = report.results.find((r) => !r.ok);
      expect(failed?.curl).toContain("Bearer ${IDV_RECEIVER_AUTH#*:}");
      expect(stdout).not.toContain(TOKEN);
      expect(stdout).not.toContain(WORKFLOW_PATH);
      const text = await runInProcess([
        "receiver",
        `${receiver.url}/idv/events`,
        "--auth",
        `bearer:${TOKEN}`,
      ]);
      expect(text.stdout).toContain("reproduce:");
      expect(text.stdout).not.toContain(TOKEN);
      expect(text.stdout).toContain("no --workflow-url given");
    } finally {
      await receiver.close();
    }
  }, 60_000);
});

describe("wrong credentials", () => {
  it("say so in one line, not only as a failure per delivery", async () => {
    const receiver = await startFixtureReceiver("none");
    try {
      const run = await runInProcess([
        "receiver",
        `${receiver.url}/idv/events`,
        "--auth",
        "bearer:not-the-token",
        "--format",
        "json",
      ]);
      const report = JSON.parse(run.stdout) as JsonReport;
      expect(run.status).toBe(1);
      expect(report.results.filter((r) => r.status === 401).length).toBeGreaterThanOrEqual(12);
      expect(report.notes[0]).toBe(
        "every delivery sent with the configured credentials answered 401: check IDV_RECEIVER_AUTH / --auth",
      );
      // In the text report too, once, and never the value given.
      vi.stubEnv("IDV_RECEIVER_AUTH", "bearer:not-the-token");
      const text = await runInProcess(["receiver", `${receiver.url}/idv/events`]);
      vi.unstubAllEnvs();
      expect(text.stdout.split("check IDV_RECEIVER_AUTH / --auth")).toHaveLength(2);
      expect(text.stdout).not.toContain("not-the-token");
    } finally {
      await receiver.close();
    }
  }, 60_000);

  it("are not hinted at when the receiver accepts them", async () => {
    const receiver = await startFixtureReceiver("refuses-test-body");
    try {
      const { report } = await battery(receiver.url);
      expect(report.notes.join("\n")).not.toContain("IDV_RECEIVER_AUTH");
    } finally {
      await receiver.close();
    }
  }, 60_000);
});

describe("the reproducers", () => {
  afterEach(() => void vi.unstubAllEnvs());

  /**
   * A receiver that keeps each Authorization header, refuses every delivery with the right one (500)
   * and acknowledges every other: each case fails, so each has a reproducer.
   */
  async function refusingEverything(right: string) {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      const auth = req.headers.authorization ?? "";
      seen.push(auth);
      req.resume().on("end", () => res.writeHead(auth === right ? 500 : 200).end());
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { seen, url, close: () => new Promise((resolve) => server.close(resolve)) };
  }

  it.each([
    ["bearer:tok_repro_71f2", "Bearer tok_repro_71f2"],
    [
      "basic:probe-user:s3cret-pass-0b1c",
      `Basic ${Buffer.from("probe-user:s3cret-pass-0b1c").toString("base64")}`,
    ],
  ])(
    "send %s as the CLI reads it from IDV_RECEIVER_AUTH",
    async (auth, header) => {
      const receiver = await refusingEverything(header);
      try {
        vi.stubEnv("IDV_RECEIVER_AUTH", auth);
        const run = await runInProcess(["receiver", `${receiver.url}/idv/events`, "--format", "json"]);
        const report = JSON.parse(run.stdout) as JsonReport;
        const right = report.results.find((r) => r.case.startsWith("example created"));
        const wrong = report.results.find((r) => r.case === "wrong credentials");
        expect(right?.curl).toMatch(/\$\{?IDV_RECEIVER_AUTH/);
        expect(run.stdout).not.toContain(auth.slice(auth.indexOf(":") + 1));
        // In a shell, asynchronously: the receiver answers from this process.
        const replay = async (curl: string | undefined) => {
          receiver.seen.length = 0;
          await promisify(execFile)("bash", ["-c", curl ?? "false"], { env: process.env, timeout: 30_000 });
          return [...receiver.seen];
        };
        expect(await replay(right?.curl)).toEqual([header]);
        const [sent] = await replay(wrong?.curl);
        expect(sent).not.toBe(header);
        // A wrong password keeps the configured user name, read from the variable too.
        if (auth.startsWith("basic:"))
          expect(Buffer.from(sent?.slice("Basic ".length) ?? "", "base64").toString()).toMatch(
            /^probe-user:wrong-[0-9a-f]+$/,
          );
      } finally {
        await receiver.close();
      }
    },
    60_000,
  );
});

describe("against hostile receivers", () => {
  it("never crashes and never quotes what the receiver answered", async () => {
    const CANARY = "CANARY-receiver-5d2e-never-echoed";
    let answer = { status: 200, body: Buffer.alloc(0), header: "" };
    const server = createServer((req, res) => {
      req.resume().on("end", () => {
        try {
          res
            .writeHead(answer.status, { "x-answer": answer.header, "content-type": CANARY })
            .end(answer.body);
        } catch {
          res.destroy();
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 200, max: 599 }),
          fc.oneof(
            fc.string(),
            fc.uint8Array({ maxLength: 100_000 }).map((b) => Buffer.from(b).toString("latin1")),
          ),
          fc.string({ maxLength: 30 }),
          async (status, body, header) => {
            answer = {
              status,
              body: Buffer.from(`${CANARY}${body}`, "latin1"),
              header: header.replace(/[^\x20-\x7e]/g, ""),
            };
            for (const format of ["text", "json", "junit"]) {
              const run = await runInProcess([
                "receiver",
                `${url}/hook`,
                "--auth",
                `bearer:${TOKEN}`,
                "--format",
                format,
              ]);
              expect([0, 1]).toContain(run.status);
              expect(run.stderr).toBe("");
              expect(run.stdout).not.toContain(CANARY);
              expect(run.stdout).not.toContain(TOKEN);
            }
          },
        ),
        { numRuns: 8 },
      );
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }, 120_000);
});
