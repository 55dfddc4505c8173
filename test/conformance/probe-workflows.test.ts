// The probe's stateful phase: the Arazzo workflows of arazzo/, their awaited events included. Against
// the sandbox every workflow passes; a sandbox broken in one rule a journey states (through a front
// that changes its answers, or drops its events) fails the workflows that state the rule, with a
// finding naming the workflow, the step and the criterion; against a deployment the events are
// awaited at --receiver-url, and without it they are said not to be checked.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ActiveResult } from "../../conformance/probe/active-report.js";
import { type Phase, runProbe } from "../../conformance/probe/run-probe.js";
import { type RunningSandbox, launchSandbox } from "../../sandbox/start.js";
import { type Break, editJson, startBrokenFront, type Rewrite } from "../arazzo/support/breaking-front.js";
import { startEventRelay } from "../arazzo/support/event-relay.js";
import { runInProcess } from "./fixtures/probe/run-cli.js";

const CREDENTIALS = { apiKey: "probe-workflows-key-71c2", secret: "probe-workflows-secret-0d9e" };

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await launchSandbox({ port: 0, credentials: CREDENTIALS, deliveryTimeoutMs: 1000 });
});
afterAll(async () => {
  await sandbox.close();
});

/** The stateful phase against `url`, for the operations of the workflows named. */
async function stateful(
  url: string,
  operations: string[],
  extra: { receiverUrl?: URL; receiverPort?: number; onReceiverListening?: (url: string) => void } = {},
) {
  return runProbe({
    baseUrl: new URL(url),
    credentials: CREDENTIALS,
    phases: ["stateful"] as Phase[],
    operations: new Set(operations),
    seed: 7,
    maxRequests: 500,
    concurrency: 4,
    readOnly: false,
    timeoutMs: 10_000,
    eventTimeoutMs: 10_000,
    ...extra,
  });
}

/** Each failed result (an unknown id's aside) as `case: messages`. */
const failures = (results: ActiveResult[]): string[] =>
  results
    .filter((r) => !r.ok && r.case !== "an id the deployment does not have")
    .map((r) => `${r.case}: ${r.violations.map((v) => v.message).join(" | ")}`)
    .sort();

const BIOMETRIC = ["createBiometricVerification", "resendBiometricVerification", "getBiometricPdf"];
const MANUAL = ["createManualVerification", "getManualPepWatchlist", "exportAndArchiveManualVerification"];
const PDFS = [
  "createPepCheck",
  "getPepCheckPdf",
  "searchKybCompanies",
  "createKybVerification",
  "getKybVerificationPdf",
  "searchProperty",
  "createPropertyVerification",
  "getOnlineOwnershipPdf",
  "getTitleSearchDocument",
];

/** The first answer to each path, served again: what a deployment that archives nothing answers. */
function replayFirst(matches: (method: string, path: string) => boolean): Break {
  const first = new Map<string, ReturnType<Break>>();
  return (method, path, answer) => {
    if (!matches(method, path)) return answer;
    const kept = first.get(path);
    if (kept) return kept;
    first.set(path, answer);
    return answer;
  };
}

describe("against the sandbox", () => {
  it("every workflow passes, its awaited events received and checked", async () => {
    const { results, notes } = await stateful(sandbox.url, [...BIOMETRIC, ...MANUAL, ...PDFS]);
    expect(failures(results)).toEqual([]);
    const ran = new Set(results.map((r) => r.case.split(":")[0]));
    for (const id of [
      "biometric-resend-then-pdf",
      "biometric-review-then-pdf",
      "biometric-pending-then-pdf",
      "biometric-error-then-new",
      "manual-verification-export",
      "pep-check-pdf",
      "kyb-search-verify-pdf",
      "property-search-ownership-title",
    ])
      expect(ran.has(id), id).toBe(true);
    const events = results.filter((r) => r.path === "(event received)").map((r) => r.case);
    expect(events).toContain("biometric-review-then-pdf: completedForReview");
    expect(events).toContain("biometric-resend-then-pdf: archivedAfterDownload");
    expect(notes.filter((n) => n.includes("skipped"))).toEqual([]);
  }, 60_000);
});

/** A rule broken: the workflows' operations to run, the front's breaks, and the failures expected. */
const BREAKS: [
  rule: string,
  operations: string[],
  broken: Break,
  rewrite: Rewrite | undefined,
  expected: string[],
][] = [
  [
    "a resend archives the original",
    BIOMETRIC,
    (method, path, answer) =>
      method === "GET" && path.startsWith("/api/v2/biometric/pdf/") && answer.status === 400
        ? editJson(answer, (body) => (body.error_code = "NOT_COMPLETED"))
        : answer,
    undefined,
    [
      "biometric-resend-then-pdf: originalPdf: workflow biometric-resend-then-pdf, step originalPdf: the criterion $response.body#/error_code == 'ALREADY_ARCHIVED' does not hold",
    ],
  ],
  [
    "a second export is refused",
    MANUAL,
    replayFirst((method, path) => method === "PUT" && path.endsWith("/export_and_archive")),
    undefined,
    [
      "manual-verification-export: exportAgain: workflow manual-verification-export, step exportAgain: the criterion $statusCode == 404 does not hold | workflow manual-verification-export, step exportAgain: the criterion $response.body#/error_type == 'NOT_FOUND' does not hold",
    ],
  ],
  [
    "a downloaded PDF is refused afterwards",
    PDFS,
    replayFirst((method, path) => method === "GET" && path.startsWith("/api/v4/pdf/")),
    undefined,
    [
      "pep-check-pdf: pdfAgain",
      "kyb-search-verify-pdf: pdfAgain",
      "property-search-ownership-title: ownershipPdfAgain",
    ]
      .map((c) => {
        const [id, step] = c.split(": ");
        const where = `workflow ${id}, step ${step}`;
        return `${c}: ${where}: the criterion $statusCode == 400 does not hold | ${where}: the criterion $response.body#/error_code == 'ALREADY_ARCHIVED' does not hold`;
      })
      .sort(),
  ],
];

describe("a sandbox broken in one rule fails the workflows that state it, naming workflow, step and criterion", () => {
  it.each(BREAKS)(
    "%s",
    async (_rule, operations, broken, rewrite, expected) => {
      const front = await startBrokenFront(sandbox.url, broken, rewrite);
      try {
        const { results } = await stateful(front.url, operations);
        expect(failures(results)).toEqual(expected);
      } finally {
        await front.close();
      }
    },
    60_000,
  );
});

/** The sandbox's control API, called by the test (standing in for a deployment's configuration). */
async function control(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const answer = await fetch(new URL(path, sandbox.url), {
    method,
    ...(body === undefined
      ? {}
      : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
  return answer.status === 204 ? {} : ((await answer.json()) as Record<string, unknown>);
}

/** A front whose control API is not there: a deployment, as the probe sees it. */
const hidden: Break = (method, path, answer) =>
  path === "/_sandbox"
    ? { status: 404, headers: { "content-type": "application/json" }, body: Buffer.from("{}") }
    : answer;

/** A front whose receivers are registered at `relay` (which forwards to the URL the probe gave). */
const relayedFront = (relay: Awaited<ReturnType<typeof startEventRelay>>) =>
  startBrokenFront(
    sandbox.url,
    (_m, _p, answer) => answer,
    (method, path, body) => {
      if (method !== "POST" || path !== "/_sandbox/receivers") return body;
      const value = JSON.parse(body.toString("utf8")) as { url: string };
      relay.forwardTo(value.url);
      return Buffer.from(JSON.stringify({ ...value, url: relay.url }));
    },
  );

describe("awaited events", () => {
  it("a workflow that moves the clock runs alone: another's pending verification is not ended by it", async () => {
    // The end user's completion of a pending verification is held until the clock moves (or 500 ms):
    // were the workflows that advance the clock run alongside, 25 hours would pass first and end the
    // pending verification in error.
    let moved: () => void = () => {};
    const clockMoved = new Promise<void>((resolve) => (moved = resolve));
    const front = await startBrokenFront(
      sandbox.url,
      (_m, _p, answer) => answer,
      async (method, path, body) => {
        if (path === "/_sandbox/clock/advance") moved();
        if (method === "POST" && /^\/_sandbox\/biometric_verifications\/[^/]+\/complete$/.test(path))
          await Promise.race([clockMoved, new Promise((resolve) => setTimeout(resolve, 500))]);
        return body;
      },
    );
    try {
      const { results } = await stateful(front.url, BIOMETRIC);
      expect(failures(results)).toEqual([]);
      expect(
        results.filter((r) => r.case === "biometric-pending-then-pdf: pdf").map((r) => r.status),
      ).toEqual([200]);
    } finally {
      await front.close();
    }
  }, 60_000);

  it("an event the sandbox does not send fails the step that awaits it; the steps that read it are skipped", async () => {
    const relay = await startEventRelay({ drop: (payload) => payload.event === "archived" });
    const front = await relayedFront(relay);
    try {
      const { results, notes } = await stateful(front.url, BIOMETRIC);
      expect(failures(results)).toEqual([
        "biometric-resend-then-pdf: originalArchived: workflow biometric-resend-then-pdf, step resend, event originalArchived: the sandbox sent no biometricWebhook:archived event about the record",
      ]);
      expect(notes).toContain(
        "stateful: workflow biometric-resend-then-pdf, step pdf was skipped: it depends on step resend, which failed",
      );
    } finally {
      await front.close();
      await relay.close();
    }
  }, 60_000);

  it("an event that breaks the AsyncAPI contract is a finding of the step's event", async () => {
    const relay = await startEventRelay({
      edit: (payload) => (payload.event === "created" ? { ...payload, reference: 42 } : payload),
    });
    const front = await relayedFront(relay);
    try {
      const { results } = await stateful(front.url, BIOMETRIC);
      const created = results.filter((r) => r.case === "biometric-review-then-pdf: created");
      expect(created.map((r) => [r.ok, r.violations.map((v) => `${v.check} ${v.pointer}`)])).toEqual([
        [false, ["payload_schema /reference"]],
      ]);
    } finally {
      await front.close();
      await relay.close();
    }
  }, 60_000);

  it("against a deployment, awaited at --receiver-url and forwarded to the probe's listener", async () => {
    // The test stands in for the end user and for time, as a deployment's world would.
    const relay = await startEventRelay({
      after: async (payload) => {
        if (payload.event === "created")
          await control(
            "POST",
            `/_sandbox/biometric_verifications/${String(payload.transaction_id)}/pending`,
          );
        if (payload.event === "pending")
          await control("POST", "/_sandbox/clock/advance", { duration: "PT25H" });
      },
    });
    const registered = await control("POST", "/_sandbox/receivers", { url: relay.url, kind: "events" });
    const front = await startBrokenFront(sandbox.url, hidden);
    try {
      const { results, notes } = await stateful(front.url, ["createBiometricVerification"], {
        receiverUrl: new URL(relay.url),
        receiverPort: 0,
        onReceiverListening: (url) => relay.forwardTo(url),
      });
      expect(failures(results)).toEqual([]);
      expect(results.map((r) => r.case)).toEqual(
        expect.arrayContaining([
          "biometric-error-then-new: created",
          "biometric-error-then-new: pending",
          "biometric-error-then-new: error",
          "biometric-error-then-new: createdAgain",
        ]),
      );
      expect(
        notes.some((n) => n.startsWith(`stateful: events awaited at ${new URL(relay.url).origin}`)),
      ).toBe(true);
    } finally {
      await control("DELETE", `/_sandbox/receivers/${String(registered.id)}`);
      await front.close();
      await relay.close();
    }
  }, 60_000);

  it("against a deployment without --receiver-url, the events are not checked and said so", async () => {
    const front = await startBrokenFront(sandbox.url, hidden);
    try {
      const { results, notes } = await stateful(front.url, ["createBiometricVerification"]);
      expect(failures(results)).toEqual([]);
      expect(results.filter((r) => r.case.startsWith("biometric-error-then-new")).map((r) => r.case)).toEqual(
        ["biometric-error-then-new: create"],
      );
      expect(notes).toContain(
        "stateful: the events the workflows await were not checked: give --receiver-url (the address the deployment calls) to receive them",
      );
      expect(notes).toContain(
        "stateful: workflow biometric-error-then-new, step create: the steps after its awaited events were not run",
      );
    } finally {
      await front.close();
    }
  }, 60_000);

  it("refuses --receiver-port without --receiver-url, and a --receiver-url that is not http", async () => {
    const base = ["probe", "--base-url", sandbox.url, "--key", "k", "--secret", "s"];
    const port = await runInProcess([...base, "--receiver-port", "9000"]);
    expect(port.status).toBe(2);
    expect(port.stderr).toContain(
      "--receiver-port is the port of the listener --receiver-url is forwarded to",
    );
    const scheme = await runInProcess([...base, "--receiver-url", "ftp://example.com/hooks"]);
    expect(scheme.status).toBe(2);
    expect(scheme.stderr).toContain("--receiver-url must be an http or https URL");
    const big = await runInProcess([
      ...base,
      "--receiver-url",
      "http://127.0.0.1:1/",
      "--receiver-port",
      "70000",
    ]);
    expect(big.status).toBe(2);
    expect(big.stderr).toContain("--receiver-port must be a port");
  });
});
