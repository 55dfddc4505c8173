// One sandbox, two transports: the contract tests' requests, the control API and the main journey
// run through the HTTP server (startSandbox, a socket) and through the in-process fetch
// (createSandbox, none), and every answer of both must conform to the contract; the same requests
// must get the same answers from both, refusals included.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createSandbox,
  type InProcessSandbox,
  type StartedSandbox,
  startSandbox,
  type SandboxControl,
} from "../../sandbox/index.js";
import { createClient, type IdvClient } from "../../src/index.js";
import { callOperation, ops } from "../contract-tests/requests.js";
import { recordingFetch } from "../support/har-recorder.js";
import { CREDENTIALS, deliveryViolations, startRecorder, trafficViolations } from "../support/sandbox.js";

type Transport = "http" | "in-process";

/** What a test needs of a sandbox, whatever carries its requests. */
interface Under {
  url: string;
  fetch: typeof fetch;
  control: SandboxControl;
  /** A receiver of events, and what it got (bodies), in order. */
  receiver: { received: string[]; close(): Promise<void> };
  close(): Promise<void>;
}

const OPTIONS = {
  key: CREDENTIALS.apiKey,
  secret: CREDENTIALS.secret,
  journeyDelayMs: 50,
  deliveryTimeoutMs: 2000,
};

async function open(transport: Transport): Promise<Under> {
  if (transport === "http") {
    const recorder = await startRecorder();
    const sandbox: StartedSandbox = await startSandbox(OPTIONS);
    await sandbox.control.addReceiver({ url: recorder.url });
    return {
      url: sandbox.url,
      fetch: globalThis.fetch,
      control: sandbox.control,
      receiver: {
        get received() {
          return recorder.received.map((r) => r.body);
        },
        close: recorder.close,
      },
      close: sandbox.close,
    };
  }
  const received: string[] = [];
  const sandbox: InProcessSandbox = await createSandbox(OPTIONS);
  await sandbox.receivers.add(async (request) => {
    received.push(await request.text());
    return new Response(null, { status: 200 });
  });
  return {
    url: sandbox.url,
    fetch: sandbox.fetch,
    control: sandbox.control,
    receiver: { received, close: async () => {} },
    close: sandbox.close,
  };
}

const clientOf = (under: Under, fetch: typeof globalThis.fetch): IdvClient =>
  createClient({ baseUrl: under.url, ...CREDENTIALS, runtime: "server", retry: false, fetch });

describe.each<Transport>(["http", "in-process"])("the sandbox through %s", (transport) => {
  let under: Under;
  beforeAll(async () => {
    under = await open(transport);
  });
  afterAll(async () => {
    await under?.close();
    await under?.receiver.close();
  });

  it("answers every contract-test request as the contract says", async () => {
    const recorder = recordingFetch(under.fetch);
    const client = clientOf(under, recorder.fetch as typeof fetch);
    // Each operation's example, then without its secret: an answer and a refusal of each.
    const stripped = clientOf(under, ((input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      request.headers.delete(request.headers.has("svc-secret") ? "svc-secret" : "svc-signature");
      return recorder.fetch(request);
    }) as typeof fetch);
    // The answers are judged from the recording: a body is not parsed (the sandbox's random first id
    // may be the example's 1042, and a PDF is then no JSON).
    const raw = { parseAs: "arrayBuffer" };
    for (const o of ops) {
      await callOperation(client, o.method, o.path, {}, undefined, raw);
      await callOperation(stripped, o.method, o.path, {}, undefined, raw);
    }
    expect(recorder.entries.length).toBe(ops.length * 2);
    // The requests without a secret break the contract on purpose: only the answers are judged.
    const answers = (await trafficViolations(recorder.har())).flatMap((r) =>
      r.violations
        .filter((v) => !v.in.startsWith("request"))
        .map((v) => `${r.method} ${r.path}: ${v.message}`),
    );
    expect(answers).toEqual([]);
    const refused = recorder.entries.filter((_, i) => i % 2 === 1).map((e) => e.response.status);
    expect(new Set(refused)).toEqual(new Set([401]));
  }, 120_000);

  it("runs the main journey: created → completed → PDF → advance → archived, delivered", async () => {
    const client = clientOf(under, under.fetch);
    const created = await client.POST("/api/v2/send_text", {
      body: { reference: "transports", firstname: "Mere", lastname: "Tane", contact_phone: "64211234567" },
    });
    expect(created.response.status).toBe(200);
    const id = created.data?.transaction_id as string;
    await under.control.biometric.complete(id, "pass");
    await under.control.settled();
    const pdf = await client.download("get", "/api/v2/biometric/pdf/{transaction_id}.pdf", {
      params: { path: { transaction_id: id } },
    });
    expect(Buffer.from(pdf.bytes).subarray(0, 5).toString("latin1")).toBe("%PDF-");
    // 60 minutes after the download the verification is archived.
    await under.control.advance("PT1H");
    const events = under.receiver.received
      .map((b) => JSON.parse(b) as { event: string; transaction_id: string })
      .filter((b) => b.transaction_id === id)
      .map((b) => b.event);
    expect(events).toEqual(["created", "completed", "archived"]);
    const deliveries = under.receiver.received.map((body) => ({
      url: "http://receiver.test/",
      headers: { "content-type": "application/json" },
      body,
    }));
    expect(await deliveryViolations(deliveries)).toEqual([]);
  }, 60_000);
});

/** What two answers to one request share by design: status, the headers that say something, the body without ids and times. */
async function comparable(response: Response): Promise<unknown> {
  const text = await response.text();
  const headers = Object.fromEntries(
    [...response.headers].filter(([name]) => !["date", "connection", "keep-alive"].includes(name)),
  );
  const body = text
    .replace(/"(request_id|timestamp|time|at|now)":"[^"]*"/g, '"$1":"…"')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "…");
  return { status: response.status, headers, body };
}

describe("the HTTP server and the in-process fetch", () => {
  let http: StartedSandbox;
  let inProcess: InProcessSandbox;
  beforeAll(async () => {
    http = await startSandbox(OPTIONS);
    inProcess = await createSandbox(OPTIONS);
  });
  afterAll(async () => {
    await http?.close();
    await inProcess?.close();
  });

  it("answer the same requests alike, refusals included", async () => {
    const keyed = { "svc-api-key": CREDENTIALS.apiKey, "svc-secret": CREDENTIALS.secret };
    const json = { ...keyed, "content-type": "application/json" };
    const requests: [string, RequestInit][] = [
      ["/api/v2/nowhere", {}],
      ["/api/v4/pep_checks", { method: "DELETE", headers: keyed }],
      ["/api/v4/pep_checks", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }],
      ["/api/v4/pep_checks", { method: "POST", headers: { ...json, "svc-secret": "wrong" }, body: "{}" }],
      ["/api/v4/pep_checks", { method: "POST", headers: json, body: "{" }],
      ["/api/v4/pep_checks", { method: "POST", headers: json, body: "[]" }],
      ["/api/v4/pep_checks", { method: "POST", headers: json, body: "x".repeat(12 * 1024 * 1024 + 1) }],
      ["/api/v4/pep_checks/01", { headers: keyed }],
      ["/api/v4/outsource_cases/1042", { method: "HEAD", headers: keyed }],
      [
        "/api/v2/send_text",
        { method: "POST", headers: { ...json, origin: "https://x.example" }, body: "{}" },
      ],
      ["/_sandbox", {}],
      ["/_sandbox/clock/advance", { method: "POST", headers: json, body: '{"duration":"P1Y"}' }],
      ["/_sandbox/receivers", { method: "POST", headers: json, body: "x".repeat(65 * 1024) }],
      ["/_sandbox/nowhere", {}],
      ["/_sandbox/deliveries?status=nope", {}],
      ["/docs", {}],
      ["/api/v2/send_text", { method: "POST", headers: { ...json, "idv-sandbox-sent": "1" }, body: "{}" }],
    ];
    for (const [path, init] of requests) {
      const [overHttp, here] = await Promise.all([
        fetch(`${http.url}${path}`, init).then(comparable),
        inProcess.fetch(`${inProcess.url}${path}`, init).then(comparable),
      ]);
      expect(here, `${init.method ?? "GET"} ${path}`).toEqual(overHttp);
    }
  }, 60_000);
});
