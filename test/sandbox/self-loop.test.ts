// Receivers that point back at the sandbox: a URL naming its own address and port is refused at
// registration, at Test and at state load; a request the sandbox sent (Idv-Sandbox-Sent) is refused
// on every route, so that a receiver aliased or proxied back to it costs one request, never a loop.
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConformanceChecker, exchangeFromHar } from "../../conformance/index.js";
import { fromRoot } from "../../scripts/lib/paths.js";
import { SandboxControlError } from "../../sandbox/index.js";
import { MAX_RETRIES } from "../../sandbox/deliveries/queue.js";
import { Sandbox } from "../../sandbox/sandbox.js";
import { pointsAtSandbox, SENT_BY_SANDBOX } from "../../sandbox/http/self-address.js";
import { launchSandbox } from "../../sandbox/start.js";
import { StateFileError, writeState } from "../../sandbox/state/file.js";
import { recordingFetch } from "../support/har-recorder.js";
import { startRecorder, startTestSandbox, until } from "../support/sandbox.js";

describe("pointsAtSandbox", () => {
  const P = 4321;
  const at = (host: string) => ({ host, port: P });

  it("names the sandbox's own port on any loopback, unspecified or local name", () => {
    for (const url of [
      `http://127.0.0.1:${P}/_sandbox/receivers/rcv_1/test`,
      `http://127.9.8.7:${P}/`,
      `http://localhost:${P}/`,
      `http://LOCALHOST.:${P}/`,
      `http://hooks.localhost:${P}/`,
      `http://[::1]:${P}/`,
      `http://[0:0:0:0:0:0:0:1]:${P}/`,
      `http://[::ffff:127.0.0.1]:${P}/`,
      `http://0.0.0.0:${P}/`,
      `http://0:${P}/`,
      `http://[::]:${P}/`,
      `http://2130706433:${P}/`,
      `http://0x7f.1:${P}/`,
      `https://${hostname()}:${P}/`,
    ])
      expect([url, pointsAtSandbox(url, at("127.0.0.1"))]).toEqual([url, true]);
    expect(pointsAtSandbox("http://localhost/", { host: "127.0.0.1", port: 80 })).toBe(true);
    expect(pointsAtSandbox("https://localhost/", { host: "127.0.0.1", port: 443 })).toBe(true);
    // Bound to one address: that address on its port.
    expect(pointsAtSandbox(`http://192.0.2.7:${P}/`, at("192.0.2.7"))).toBe(true);
  });

  it("leaves other ports, other hosts and a sandbox not listening alone", () => {
    for (const url of [
      `http://127.0.0.1:${P + 1}/`,
      `http://localhost:${P - 1}/`,
      `http://192.0.2.7:${P}/`,
      `http://example.com:${P}/`,
      `http://localhost.example:${P}/`,
      "http://127.0.0.1/",
      "https://127.0.0.1/",
      "not a url",
    ])
      expect([url, pointsAtSandbox(url, at("127.0.0.1"))]).toEqual([url, false]);
    expect(pointsAtSandbox(`http://127.0.0.1:${P}/`, undefined)).toBe(false);
  });
});

/**
 * A forwarding proxy in front of the sandbox, as an alias or a reverse proxy would be: `/k` goes to
 * the sandbox path `routes[k]`, headers and body as they came. Counts what it forwards.
 */
async function startAlias() {
  const alias = { target: "", routes: [] as string[], forwarded: 0 };
  const server: Server = createServer((req, res) => {
    const route = alias.routes[Number((req.url ?? "/").slice(1))] ?? "/nowhere";
    alias.forwarded++;
    const headers = { ...req.headers };
    delete headers.host;
    const out = request(`${alias.target}${route}`, { method: req.method ?? "POST", headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on("error", () => res.destroy());
    res.on("close", () => out.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { alias, url, close };
}

let proxy: Awaited<ReturnType<typeof startAlias>>;
beforeAll(async () => {
  proxy = await startAlias();
});
afterAll(() => proxy.close());

describe("a receiver pointing back at the sandbox", () => {
  it("is refused at registration, naming the member, when its url is the sandbox's own address", async () => {
    const sbx = await startTestSandbox();
    const other = await startRecorder();
    try {
      const port = new URL(sbx.running.url).port;
      for (const host of ["127.0.0.1", "localhost", "[::1]", "0.0.0.0", "127.0.0.2"]) {
        const error = await sbx.control
          .addReceiver({ url: `http://${host}:${port}/_sandbox/receivers/rcv_x/test` })
          .then(
            () => undefined,
            (e: unknown) => e,
          );
        expect(error).toBeInstanceOf(SandboxControlError);
        expect((error as SandboxControlError).status).toBe(400);
        expect((error as SandboxControlError).message).toContain(
          "/url: must not point at this sandbox itself",
        );
      }
      // Another port on the same address is another service: accepted.
      expect((await sbx.control.addReceiver({ url: `${other.url}/hook` })).url).toBe(`${other.url}/hook`);
    } finally {
      await sbx.running.close();
      await other.close();
    }
  });

  it("refuses a request it sent itself with 508 LOOP_DETECTED, on the control API as its contract says", async () => {
    const sbx = await startTestSandbox();
    try {
      const recorder = recordingFetch();
      const answer = await recorder.fetch(`${sbx.running.url}/_sandbox/clock`, {
        headers: { [SENT_BY_SANDBOX]: "1" },
      });
      expect(answer.status).toBe(508);
      expect(await answer.json()).toMatchObject({ error_code: "LOOP_DETECTED" });
      const spec = JSON.parse(readFileSync(fromRoot("generated/sandbox-control.json"), "utf8"));
      const checker = createConformanceChecker({ spec });
      expect(checker.checkExchange(exchangeFromHar(recorder.entries[0] as never, 0))).toMatchObject({
        ok: true,
      });
      // On the service's routes too, in the operation's error shape, before credentials or body.
      const service = await fetch(`${sbx.running.url}/api/v2/send_text`, {
        method: "POST",
        headers: { [SENT_BY_SANDBOX.toLowerCase()]: "1", "content-type": "application/json" },
        body: "{}",
      });
      expect(service.status).toBe(508);
      expect(await service.json()).toMatchObject({ error_code: "LOOP_DETECTED" });
      const manual = await fetch(`${sbx.running.url}/api/v2/manual_eidv/create`, {
        method: "POST",
        headers: { [SENT_BY_SANDBOX]: "yes" },
      });
      expect(await manual.json()).toMatchObject({ error_type: "LOOP_DETECTED" });
      // Without the header, the same request is the service's as before.
      expect((await fetch(`${sbx.running.url}/_sandbox/clock`)).status).toBe(200);
    } finally {
      await sbx.running.close();
    }
  });

  it("marks every request it sends, deliveries and the Test button alike", async () => {
    const receiver = await startRecorder();
    const sbx = await startTestSandbox();
    try {
      const r = await sbx.control.addReceiver({ url: `${receiver.url}/hook` });
      await sbx.control.testReceiver(r.id);
      await sbx.client.POST("/api/v2/send_text", { body: { reference: "marked" } });
      await receiver.arrived(2);
      expect(receiver.received.map((got) => got.headers[SENT_BY_SANDBOX.toLowerCase()])).toEqual(["1", "1"]);
    } finally {
      await sbx.running.close();
      await receiver.close();
    }
  });

  it("is refused at Test with 409 LOOP_DETECTED, as the contract says, if one got in another way", async () => {
    const sbx = await startTestSandbox();
    try {
      const { port } = sbx.running.server;
      // Past the control API's check: the queue takes any URL it is given.
      const own = sbx.running.sandbox.queue.addReceiver(`http://[::1]:${port}/_sandbox/clock`, "events");
      const recorder = recordingFetch();
      const answer = await recorder.fetch(`${sbx.running.url}/_sandbox/receivers/${own.id}/test`, {
        method: "POST",
      });
      expect(answer.status).toBe(409);
      expect(await answer.json()).toMatchObject({ error_code: "LOOP_DETECTED" });
      const spec = JSON.parse(readFileSync(fromRoot("generated/sandbox-control.json"), "utf8"));
      expect(
        createConformanceChecker({ spec }).checkExchange(exchangeFromHar(recorder.entries[0] as never, 0)),
      ).toMatchObject({ ok: true });
      expect(sbx.lines.filter((line) => line.includes("sent by a sandbox"))).toEqual([]);
    } finally {
      await sbx.running.close();
    }
  });

  it("is refused at state load, naming the file and where, and the file is left as it was", async () => {
    const { port, release } = await heldPort();
    const file = join(mkdtempSync(join(tmpdir(), "sbx-loop-")), "state.json");
    const saved = new Sandbox({ credentials: { apiKey: "k", secret: "s" } });
    saved.queue.addReceiver(`${proxy.url}/0`, "events");
    saved.queue.addReceiver(`http://localhost:${port}/_sandbox/receivers/rcv_x/test`, "events");
    writeState(file, saved);
    await saved.close();
    const before = readFileSync(file, "utf8");
    try {
      const error = await launchSandbox({ port, host: "127.0.0.2", stateFile: file }).then(
        async (running) => {
          await running.close();
          return undefined;
        },
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(StateFileError);
      expect((error as Error).message).toContain(
        `state file ${file} holds a receiver whose url points at this sandbox itself`,
      );
      expect((error as Error).message).toContain("(at /receivers/1)");
      expect(readFileSync(file, "utf8")).toBe(before);
    } finally {
      await release();
    }
  });

  it("is refused as --webhook-url, and the state file is not locked after", async () => {
    const { port, release } = await heldPort();
    const file = join(mkdtempSync(join(tmpdir(), "sbx-loop-")), "state.json");
    try {
      const start = () =>
        launchSandbox({
          port,
          host: "127.0.0.2",
          stateFile: file,
          webhookUrl: `http://127.0.0.2:${port}/hook`,
        });
      await expect(start()).rejects.toThrow("--webhook-url must not point at this sandbox itself");
      // Refused again for the same reason, not for a lock left behind.
      await expect(start()).rejects.toThrow("--webhook-url must not point at this sandbox itself");
    } finally {
      await release();
    }
  });
});

/**
 * A port the sandbox can listen on at 127.0.0.2, known before it starts: held on 127.0.0.1 meanwhile,
 * so nothing else takes it (Linux answers the whole of 127.0.0.0/8).
 */
async function heldPort(): Promise<{ port: number; release: () => Promise<void> }> {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
  const port = (holder.address() as AddressInfo).port;
  return { port, release: () => new Promise<void>((resolve) => holder.close(() => resolve())) };
}

describe("any graph of receivers pointing back at the sandbox", () => {
  /** Where an alias leads: the Test button of the nth receiver kept, a service route or a control route. */
  const aliased = fc.oneof(
    fc.nat({ max: 3 }).map((n) => ({ test: n })),
    fc.constantFrom(
      "/api/v2/send_text",
      "/api/v4/pep_checks",
      "/_sandbox/receivers",
      "/_sandbox/clock/advance",
      "/_sandbox/deliveries",
    ),
  );
  /** A URL that names the sandbox's own address and port outright. */
  const direct = fc.record({
    direct: fc.constantFrom("127.0.0.1", "127.0.0.2", "localhost", "[::1]", "0.0.0.0"),
    path: fc.constantFrom("/_sandbox/receivers/rcv_1/test", "/api/v2/send_text", "/_sandbox/clock"),
  });
  const receivers = fc.array(
    fc.oneof(
      aliased.map((to) => ({ to })),
      direct,
    ),
    { minLength: 1, maxLength: 4 },
  );

  it("ends every Test and every delivery within a bounded number of requests", async () => {
    await fc.assert(
      fc.asyncProperty(receivers, fc.boolean(), async (graph, fromState) => {
        const { port, release } = await heldPort();
        const urlOf = (r: (typeof graph)[number], i: number) =>
          "direct" in r ? `http://${r.direct}:${port}${r.path}` : `${proxy.url}/${i}`;
        const options = { port, host: "127.0.0.2" };
        const routed = graph.flatMap((r, i) => ("to" in r ? [{ to: r.to, i }] : []));
        let file: string | undefined;
        if (fromState) {
          // A state file written as the sandbox writes one, its receivers pointing where drawn.
          file = join(mkdtempSync(join(tmpdir(), "sbx-loop-")), "state.json");
          const saved = new Sandbox({ credentials: { apiKey: "k", secret: "s" } });
          graph.forEach((r, i) => saved.queue.addReceiver(urlOf(r, i), "events"));
          writeState(file, saved);
          await saved.close();
          if (routed.length < graph.length) {
            await expect(startTestSandbox({ ...options, stateFile: file })).rejects.toBeInstanceOf(
              StateFileError,
            );
            await release();
            return;
          }
        }
        const sbx = await startTestSandbox(file ? { ...options, stateFile: file } : options);
        try {
          proxy.alias.target = sbx.running.url;
          const ids: string[] = [];
          if (file) for (const r of await sbx.control.receivers()) ids.push(r.id);
          else
            for (const [i, r] of graph.entries()) {
              const added = sbx.control.addReceiver({ url: urlOf(r, i) });
              if ("to" in r) ids.push((await added).id);
              else await expect(added).rejects.toMatchObject({ status: 400 });
            }
          expect(ids).toHaveLength(routed.length);
          proxy.alias.routes = [];
          for (const { to, i } of routed)
            proxy.alias.routes[i] =
              typeof to === "string" ? to : `/_sandbox/receivers/${ids[to.test % ids.length]}/test`;
          proxy.alias.forwarded = 0;
          // Each Test is one POST, refused at its first hop back.
          for (const id of ids)
            expect(await sbx.control.testReceiver(id)).toEqual({ ok: false, status: 508 });
          expect(proxy.alias.forwarded).toBe(ids.length);
          // Each delivery: one POST per attempt, every one refused, all of them tried.
          sbx.running.sandbox.queue.emit("events", "biometricWebhook", "test", "loop", '{"event":"test"}');
          await sbx.control.advance("PT6H");
          await until(() => sbx.running.sandbox.queue.list().every((d) => d.status === "failed"));
          for (const d of sbx.running.sandbox.queue.list())
            expect(d.attempts.map((a) => a.status)).toEqual(Array(MAX_RETRIES + 1).fill(508));
          expect(proxy.alias.forwarded).toBe(ids.length * (1 + MAX_RETRIES + 1));
          // The sandbox saw each of them once, refused, and nothing else it sent.
          expect(sbx.lines.filter((line) => line.includes("(sent by a sandbox) → 508"))).toHaveLength(
            proxy.alias.forwarded,
          );
        } finally {
          await sbx.running.close();
          await release();
        }
      }),
      { numRuns: 12 },
    );
  });
});
