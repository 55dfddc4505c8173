// A process whose only work is an in-process sandbox, for the test that an awaited advance keeps
// its process alive until it answers and that a sandbox nobody awaits lets its process exit:
//   node --import tsx test/support/awaited-advance.ts <awaited|unawaited>
// It prints one JSON line when the advance answers (awaited), or nothing (unawaited).
import { createSandbox } from "../../sandbox/index.js";
import { createClient } from "../../src/index.js";

const mode = process.argv[2];
const sandbox = await createSandbox({ key: "k", secret: "s", deliveryTimeoutMs: 2000 });
await sandbox.receivers.add(() => new Response(null, { status: 500 }));
const idv = createClient({ baseUrl: sandbox.url, apiKey: "k", secret: "s", fetch: sandbox.fetch });
await idv.POST("/api/v2/send_text", { body: { reference: "alive", lastname: "sandbox-pending-error" } });
if (mode === "awaited") {
  const advanced = await sandbox.control.advance("PT6H");
  const deliveries = (await sandbox.control.deliveries()).map((d) => ({
    status: d.status,
    attempts: d.attempts.length,
    next: d.next_attempt_at,
  }));
  console.log(JSON.stringify({ in_flight: advanced.in_flight.count, now: advanced.now, deliveries }));
} else {
  // Timers pending (the journey, the retries) and deliveries due: nothing awaited.
  void sandbox.control.advance("PT1M");
}
