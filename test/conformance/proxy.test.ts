// The validating proxy in front of the contract mock on loopback: it forwards requests and answers
// unchanged (streaming, large bodies too), prints violations live without recorded values, records
// a redacted HAR that the suite can read back, and exits with the suite's codes when stopped.
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { createReadStream, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { Server, Socket } from "node:net";
import { connect, createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConformanceChecker } from "../../conformance/run/open-checker.js";
import { startProxy } from "../../conformance/proxy/proxy.js";
import { runProxy } from "../../conformance/proxy/proxy-cli.js";
import { HarRecorder } from "../../conformance/proxy/har.js";
import type { RunningMock } from "../../mock/server.js";
import { startMock } from "../../mock/server.js";
import { fromRoot } from "../../scripts/lib/paths.js";
import { jsonRequestExamples, loadOpenApi, operations } from "../support/contract.js";
import {
  assertPrototypesUntouched,
  CANARIES,
  containsCanary,
  hostileJsonText,
  hostileTarget,
  prototypeSnapshot,
  rawStatus,
  sendRaw,
} from "../support/hostile.js";
import { V2, V4 } from "../support/mock.js";
import { Capture, runMain } from "./support/in-process.js";

const doc = loadOpenApi();
const pepExample = jsonRequestExamples(
  doc,
  operations(doc).find((o) => o.op.operationId === "createPepCheck")?.op,
)?.[0];
const dir = mkdtempSync(join(tmpdir(), "idv-proxy-"));
let mock: RunningMock;

/** Run the proxy in front of `upstream`; `stop()` ends it and gives its exit status and output. */
async function proxyTo(upstream: string, extra: string[] = []) {
  const stdout = new Capture();
  const stderr = new Capture();
  let stop = (): void => undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  let url = "";
  let listened = (): void => undefined;
  const listening = new Promise<void>((resolve) => (listened = resolve));
  const finished = runProxy(["proxy", "--upstream", upstream, "--port", "0", ...extra], {
    stdout,
    stderr,
    stopped,
    onListening: (u) => {
      url = u;
      listened();
    },
  });
  // A run that fails before listening fails the test with its own error.
  await Promise.race([
    listening,
    finished.then((code) => Promise.reject(new Error(`proxy exited ${code}: ${stderr.text}`))),
  ]);
  return {
    url,
    port: Number(new URL(url).port),
    stop: async () => {
      stop();
      return { status: await finished, stdout: stdout.text, stderr: stderr.text };
    },
  };
}

/** Listen on a free loopback port and give the port. */
async function listenLoopback(server: Server): Promise<number> {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return (server.address() as { port: number }).port;
}

/** A raw-socket service that `onSocket` drives, and a proxy in front of it whose checks do nothing. */
async function proxyToRawService(onSocket: (socket: Socket) => void) {
  const upstream = createNetServer((socket) => {
    socket.on("error", () => undefined);
    onSocket(socket);
  });
  const port = await listenLoopback(upstream);
  const proxy = await startProxy({
    upstream: new URL(`http://127.0.0.1:${port}`),
    checker: { checkExchange: () => undefined } as unknown as ConformanceChecker,
    port: 0,
  });
  return { proxy, upstream };
}

beforeAll(async () => {
  mock = await startMock({ port: 0 });
});
afterAll(async () => {
  await mock?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("idv-conformance proxy", () => {
  it("forwards conforming traffic unchanged and exits 0 with a summary", async () => {
    const proxy = await proxyTo(mock.url);
    const direct = await fetch(`${mock.url}/api/v4/outsource_cases/1042`, { headers: V4 });
    const through = await fetch(`${proxy.url}/api/v4/outsource_cases/1042`, { headers: V4 });
    expect(through.status).toBe(direct.status);
    expect(await through.text()).toBe(await direct.text());
    const pdf = await fetch(`${proxy.url}/api/v4/pdf/pep_checks/1042`, { headers: V4 });
    expect(pdf.headers.get("content-type")).toBe("application/pdf");
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe("%PDF-");
    const { status, stdout } = await proxy.stop();
    expect(stdout).toBe("2 exchanges checked: 2 conform, 0 do not, 0 warnings\n");
    expect(status).toBe(0);
  });

  it("prints each violation live, never a recorded value, and exits 1", async () => {
    const proxy = await proxyTo(mock.url);
    // A route the contract lacks, with a canary as its segment, and an undocumented header case.
    await fetch(`${proxy.url}/api/v4/${CANARIES[0]}/x?email=${CANARIES[1]}`, {
      headers: { ...V4, "x-n": CANARIES[2] },
    }).then((r) => r.arrayBuffer());
    // Missing credentials: the mock's 401 conforms, the request does not.
    await fetch(`${proxy.url}/api/v4/pep_checks`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...pepExample, note: CANARIES[3] }),
    }).then((r) => r.arrayBuffer());
    const { status, stdout, stderr } = await proxy.stop();
    expect(status).toBe(1);
    expect(stdout).toMatch(/^✗ GET /m);
    expect(stdout).toMatch(
      /^✗ POST \/api\/v4\/pep_checks \(createPepCheck\)\n {2}request\.header .*\[auth_headers_present\]/m,
    );
    expect(stdout).toMatch(/2 exchanges checked: 0 conform, 2 do not/);
    expect(containsCanary(stdout + stderr)).toBe(false);
  });

  it("records a HAR with credentials and personal data replaced, which check judges as it ran", async () => {
    const har = join(dir, "traffic.har");
    const proxy = await proxyTo(mock.url, ["--record", har]);
    const body = {
      ...pepExample,
      individual: { ...pepExample.individual, first_name: "Jane", last_name: CANARIES[1] },
    };
    await fetch(`${proxy.url}/api/v4/pep_checks`, {
      method: "POST",
      headers: { ...V4, "svc-api-key": CANARIES[0], "content-type": "application/json" },
      body: JSON.stringify(body),
    }).then((r) => r.arrayBuffer());
    // Header names and the values of described headers are the sender's text too.
    await fetch(`${proxy.url}/api/v2/manual_eidv/${CANARIES[2]}/assets/pep_watchlist?ref=${CANARIES[4]}`, {
      headers: {
        ...V2,
        "svc-secret": CANARIES[3],
        accept: `application/json, ${CANARIES[0]}`,
        prefer: `example=${CANARIES[2]}`,
        "cache-control": `max-age=${CANARIES[4]}`,
        [`x-${CANARIES[0]}`]: "1",
      },
    }).then((r) => r.arrayBuffer());
    // A Content-Type's parameters are the sender's: only a known charset keeps its value.
    await fetch(`${proxy.url}/api/v4/pep_checks`, {
      method: "POST",
      headers: {
        ...V4,
        "content-type": `application/json; charset=UTF-8; note="${CANARIES[1]}"; ${CANARIES[0]}=1`,
      },
      body: JSON.stringify(body),
    }).then((r) => r.arrayBuffer());
    const { status, stdout: stdoutOf } = await proxy.stop();
    const text = readFileSync(har, "utf8");
    expect(CANARIES.filter((c) => text.includes(c))).toEqual([]);
    expect(text).not.toContain("test-secret");
    const log = JSON.parse(text).log;
    expect(log.entries).toHaveLength(3);
    expect(log.entries[2].request.headers).toContainEqual({
      name: "Content-Type",
      value: "application/json; charset=utf-8",
    });
    expect(log.entries[0].request.headers).toContainEqual({ name: "Svc-API-Key", value: "[redacted]" });
    expect(log.entries[0].request.headers).toContainEqual({
      name: "Content-Type",
      value: "application/json",
    });
    expect(log.entries[1].request.headers).toContainEqual({
      name: "Accept",
      value: "application/json, [redacted]",
    });
    // A value becomes a stand-in of its shape: a capitalised four-letter name stays one.
    const firstName = JSON.parse(log.entries[0].request.postData.text).individual.first_name;
    expect(firstName).toMatch(/^[A-Z][a-z]{3}$/);
    expect(firstName).not.toBe("Jane");
    // The recording is judged as the traffic was: the same count of exchanges conform.
    const { status: code, stdout } = await runMain(["check", har, "--format", "json"]);
    const live = /(\d+) exchanges checked: (\d+) conform, (\d+) do not/.exec(stdoutOf);
    const summary = JSON.parse(stdout).summary;
    expect([summary.entries, summary.passed, summary.failed]).toEqual(live?.slice(1).map(Number));
    expect(code).toBe(status);
  });

  it("holds new requests back while the recording waits for the disk, then records every exchange", async () => {
    // A FIFO whose reader is idle stands for a disk slower than the traffic.
    const fifo = join(dir, "slow.har");
    execFileSync("mkfifo", [fifo]);
    const reader = createReadStream(fifo);
    const backlog = 256 * 1024;
    const recorder = await HarRecorder.open(fifo, doc, backlog);
    const proxy = await startProxy({
      upstream: new URL(mock.url),
      checker: { checkExchange: () => undefined } as unknown as ConformanceChecker,
      port: 0,
      onExchange: (exchange) => recorder.add(exchange),
      ready: () => recorder.ready(),
    });
    // Numbers are recorded as they are, so each entry is about 200 KB in the HAR.
    const body = JSON.stringify(Array.from({ length: 20_000 }, (_, i) => 100_000_000 + i));
    const send = () =>
      fetch(`${proxy.url}/api/v4/pep_checks`, {
        method: "POST",
        headers: { ...V4, "content-type": "application/json" },
        body,
      }).then((r) => r.arrayBuffer());
    const answeredWithin = (ms: number, request: Promise<unknown>) =>
      Promise.race([request.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);
    // The first is always answered: the recording is empty. Waiting for it keeps a slow machine honest.
    await send();
    let answered = 1;
    let held: Promise<unknown> | undefined;
    while (answered < 30) {
      const request = send();
      // Generous: a request counts as held only when it waits far longer than any answer takes.
      if (!(await answeredWithin(2_000, request))) {
        held = request;
        break;
      }
      answered++;
    }
    // Held once the backlog and the pipe filled, which is a handful of entries, not the whole run.
    expect(held).toBeDefined();
    expect(answered).toBeGreaterThan(0);
    const chunks: Buffer[] = [];
    reader.on("data", (chunk) => chunks.push(chunk as Buffer));
    await held;
    await send();
    await proxy.close();
    await recorder.close();
    await once(reader, "end");
    const log = JSON.parse(Buffer.concat(chunks).toString("utf8")).log;
    expect(log.entries).toHaveLength(answered + 2);
  }, 30_000);

  it("streams a large body through without holding it for the answer", async () => {
    // An upstream that answers with the size it received, as soon as it has it all.
    const upstream = createServer((req, res) => {
      let size = 0;
      req.on("data", (chunk: Buffer) => (size += chunk.length));
      req.on("end", () => {
        res.writeHead(200, { "content-type": "text/plain" });
        // A large answer too, written in pieces.
        for (let i = 0; i < 32; i++) res.write(Buffer.alloc(1024 * 1024, 0x61));
        res.end(String(size));
      });
    });
    const proxy = await proxyTo(`http://127.0.0.1:${await listenLoopback(upstream)}`);
    const big = Buffer.alloc(20 * 1024 * 1024, 0x62);
    const res = await fetch(`${proxy.url}/upload`, { method: "POST", body: big });
    const answer = Buffer.from(await res.arrayBuffer());
    expect(answer.length).toBe(32 * 1024 * 1024 + String(big.length).length);
    expect(answer.subarray(-8).toString()).toBe(String(big.length));
    const { stderr } = await proxy.stop();
    expect(stderr).toContain(
      "a POST exchange was forwarded but not checked: its request body was over the capture limit or could not be decoded",
    );
    upstream.close();
  });

  it("answers 502 in the service's shape when the service cannot be reached", async () => {
    const closed = createServer();
    const port = await listenLoopback(closed);
    closed.close();
    const proxy = await proxyTo(`http://127.0.0.1:${port}`);
    const res = await fetch(`${proxy.url}/api/v4/outsource_cases/1`, { headers: V4 });
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({
      error_code: "PROXY_UPSTREAM",
      message: "The proxy could not reach the service.",
    });
    await proxy.stop();
  });

  it("answers 502 when the service's status line is one Node will not send on (099), and keeps forwarding", async () => {
    const { proxy, upstream } = await proxyToRawService((socket) =>
      socket.once("data", () => socket.end("HTTP/1.1 099 Odd\r\ncontent-length: 2\r\n\r\nok")),
    );
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${proxy.url}/api/v4/outsource_cases/1`, { headers: V4 });
      expect(res.status).toBe(502);
      expect(await res.json()).toEqual({
        error_code: "PROXY_UPSTREAM",
        message: "The service's answer is not valid HTTP.",
      });
    }
    await proxy.close();
    upstream.close();
  });

  it("ends the upstream request when the client resets its connection before the answer", async () => {
    // A service that takes the request and never answers; it notes when the proxy hangs up.
    let hungUp: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => (hungUp = resolve));
    let received: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => (received = resolve));
    const { proxy, upstream } = await proxyToRawService((socket) => {
      socket.once("data", () => received());
      socket.once("close", () => hungUp());
    });
    const client = connect(new URL(proxy.url).port as unknown as number, "127.0.0.1");
    client.on("error", () => undefined);
    client.write("GET /api/v4/outsource_cases/1 HTTP/1.1\r\nHost: x\r\n\r\n");
    await arrived;
    // A reset, not a half-close: a client that only half-closes is still owed its answer.
    client.resetAndDestroy();
    // Without the proxy ending it, the upstream connection stays open until the test times out.
    await closed;
    await proxy.close();
    upstream.close();
  }, 15_000);

  it("stops on SIGTERM as a process: the summary, the recording closed, exit 1 after a violation", async () => {
    const har = join(dir, "signal.har");
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        fromRoot("conformance/cli.ts"),
        "proxy",
        "--upstream",
        mock.url,
        "--port",
        "0",
        "--record",
        har,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on("data", (c: Buffer) => {
        err += c.toString();
        const match = /proxy: (http:\/\/\S+)/.exec(err);
        if (match?.[1]) resolve(match[1]);
      });
      child.on("exit", () => reject(new Error(err)));
    });
    await fetch(`${url}/api/v4/outsource_cases/1042`).then((r) => r.arrayBuffer());
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    child.kill("SIGTERM");
    expect(await exited).toBe(1);
    expect(out).toMatch(/1 exchanges checked: 0 conform, 1 do not/);
    expect(JSON.parse(readFileSync(har, "utf8")).log.entries).toHaveLength(1);
  });

  it("keeps forwarding when a check throws, and says the exchange went unchecked", async () => {
    const unchecked: string[] = [];
    const throwing = {
      checkExchange: () => {
        throw new RangeError(`deep ${CANARIES[0]}`);
      },
      checkFile: () => {
        throw new Error("unused");
      },
    } as unknown as ConformanceChecker;
    const proxy = await startProxy({
      upstream: new URL(mock.url),
      checker: throwing,
      port: 0,
      onUnchecked: (method, why) => unchecked.push(`${method}: ${why}`),
    });
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${proxy.url}/api/v4/outsource_cases/1042`, { headers: V4 });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    await proxy.close();
    expect(unchecked).toEqual(["GET: the check failed (RangeError)", "GET: the check failed (RangeError)"]);
  });

  it("refuses unusable arguments with exit 2 through the CLI", async () => {
    for (const args of [
      ["proxy"],
      ["proxy", "--upstream", "ftp://x"],
      ["proxy", "--upstream", "http://a:b@x"],
      ["proxy", "--upstream", "http://x", "--port", "99999"],
    ]) {
      const { status, stderr } = await runMain(args);
      expect(status, args.join(" ")).toBe(2);
      expect(stderr).toMatch(/^idv-conformance: /);
    }
  });

  it("survives hostile request lines and bodies, and keeps forwarding", async () => {
    const snapshot = prototypeSnapshot();
    const har = join(dir, "hostile.har");
    const proxy = await proxyTo(mock.url, ["--record", har]);
    await fc.assert(
      fc.asyncProperty(hostileTarget(), hostileJsonText(), async (target, body) => {
        const raw = `POST ${target} HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
        const answer = await sendRaw(proxy.port, raw);
        expect(rawStatus(answer), JSON.stringify([target, answer.slice(0, 300)])).toBeDefined();
        assertPrototypesUntouched(snapshot);
      }),
      { numRuns: 60 },
    );
    const ok = await fetch(`${proxy.url}/api/v4/outsource_cases/1042`, { headers: V4 });
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();
    const { stdout, stderr } = await proxy.stop();
    expect(containsCanary(stdout + stderr)).toBe(false);
    const recorded = readFileSync(har, "utf8");
    expect(containsCanary(recorded)).toBe(false);
    // Targets that are not paths are answered by the proxy itself; the rest were forwarded and recorded.
    expect(JSON.parse(recorded).log.entries.length).toBeGreaterThan(10);
  });
});
