// The main flow against the sandbox, end to end: the typed client starts a biometric verification,
// the README's receiver gets created then completed, the PDF is downloaded, the clock is advanced an
// hour, and the archived event arrives. `npx tsx examples/sandbox-e2e.ts` runs it; so does npm test.
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { launchSandbox } from "../sandbox/start.js";
import { createSandboxControl } from "../sandbox/index.js";
import { createClient } from "../src/index.js";
import type { WebhookEvent } from "../src/webhooks/index.js";
import { createReceiver } from "./webhook-receiver.js";

export interface EndToEnd {
  /** The events the receiver processed, in order, as `event transaction_id`. */
  events: string[];
  transactionId: string;
  pdf: { filename: string; bytes: Uint8Array };
}

/** Run the flow; `fetch` lets a test record the client's traffic. */
export async function runSandboxEndToEnd(options: { fetch?: typeof fetch } = {}): Promise<EndToEnd> {
  const token = "sandbox-receiver-token";
  const events: WebhookEvent[] = [];
  const waiters: (() => void)[] = [];
  const receiver = createReceiver({
    credentials: { scheme: "bearer", token },
    workflowPath: "/cases/3f9c2a71d8",
    handle: (event) => {
      events.push(event);
      for (const wake of waiters.splice(0)) wake();
    },
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/idv/events`;
  /** Resolves once the receiver has processed an event named `name`. */
  const eventArrives = (name: string) =>
    new Promise<void>((resolve, reject) => {
      const timeout = setTimeout(() => reject(new Error(`no ${name} event within 10 s`)), 10_000);
      const check = () => {
        if (events.some((e) => e.event === name)) {
          clearTimeout(timeout);
          resolve();
        } else waiters.push(check);
      };
      check();
    });

  const sandbox = await launchSandbox({ port: 0 });
  try {
    const control = createSandboxControl(sandbox.url);
    await control.addReceiver({ url: receiverUrl, kind: "events", auth: { scheme: "bearer", token } });

    const idv = createClient({
      baseUrl: sandbox.url,
      apiKey: sandbox.credentials.apiKey,
      secret: sandbox.credentials.secret,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    // The magic last name: the journey completes with status pass by itself, a few seconds later.
    const created = await idv.POST("/api/v2/send_text", {
      body: {
        reference: "onboarding-7731",
        firstname: "Mere",
        lastname: "sandbox-pass",
        contact_phone: "64211234567",
      },
    });
    if (!created.data) throw new Error(`send_text answered ${created.response.status}`);
    const transactionId = created.data.transaction_id;
    await eventArrives("created");
    await eventArrives("completed");

    const pdf = await idv.download("get", "/api/v2/biometric/pdf/{transaction_id}.pdf", {
      params: { path: { transaction_id: transactionId } },
    });
    // 60 minutes after the download the verification is archived: an hour on the virtual clock.
    await control.advance("PT1H");
    await eventArrives("archived");
    return {
      events: events.map((e) => `${e.event} ${(e.payload as { transaction_id?: string }).transaction_id}`),
      transactionId,
      pdf: { filename: pdf.filename ?? "", bytes: pdf.bytes },
    };
  } finally {
    await sandbox.close();
    await new Promise((resolve) => receiver.close(resolve));
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const result = await runSandboxEndToEnd();
  console.log(result.events.map((e) => e.split(" ")[0]).join(" → "));
  console.log(`PDF ${result.pdf.filename}: ${result.pdf.bytes.length} bytes`);
}
