// Prism's validating proxy (`prism proxy generated/openapi.json <upstream>`) as a second, independent
// judge of what a server answers. Requests go through Prism unchanged (its request validation is
// off, so deliberately wrong requests still reach the server), and every violation Prism finds in an
// answer is collected from its `sl-violations` response header and from its log.
//
// What Prism cannot judge goes around it, straight to the upstream, and is counted apart:
// - a HEAD request: Prism answers one whose GET answer is JSON with its own 500;
// - a body that is not valid JSON under a JSON media type: Prism answers it itself (a 400/422 of its
//   own) and never forwards it;
// - members a closed schema forbids through `unevaluatedProperties: false`: Prism does not apply
//   that keyword, so such a member passes (nothing to route around; the conformance suite checks it).
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { fromRoot } from "../../scripts/lib/paths.js";

/** One violation Prism reported, with the exchange it was found in. */
export interface PrismViolation {
  exchange: string;
  location: string;
  severity: string;
  message: string;
}

export interface PrismJudge {
  /** Where Prism listens. */
  url: string;
  /** A fetch that sends the upstream's contract requests (`/api/…`) through Prism and judges the answers. */
  fetch: typeof fetch;
  /** Response violations found so far, from the `sl-violations` headers. */
  violations: PrismViolation[];
  /** Prism's log lines that report a response violation (the same findings, as Prism logs them). */
  logged: string[];
  /** Connections Prism tried to open to anything but loopback (each was refused). */
  network: () => string[];
  /** Exchanges Prism judged. */
  judged: string[];
  /** Exchanges sent around Prism, with the reason. */
  around: string[];
  close: () => Promise<void>;
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });

/** Why a request cannot be judged by Prism, or undefined when it can. */
async function notJudgeable(request: Request): Promise<string | undefined> {
  if (request.method === "HEAD") return "HEAD (Prism answers it with its own 500)";
  const type = request.headers.get("content-type") ?? "";
  if (/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) {
    const text = await request.clone().text();
    if (text !== "") {
      try {
        JSON.parse(text);
      } catch {
        return "malformed JSON (Prism answers it itself)";
      }
    }
  }
  return undefined;
}

/** Start `prism proxy` in front of `upstream` (an origin on loopback). */
export async function startPrismJudge(upstream: string): Promise<PrismJudge> {
  const port = await freePort();
  const violations: PrismViolation[] = [];
  const judged: string[] = [];
  const around: string[] = [];
  const log: string[] = [];
  const logged: string[] = [];
  const networkLog = join(mkdtempSync(join(tmpdir(), "idv-prism-net-")), "attempts.log");
  const child: ChildProcess = spawn(
    fromRoot("node_modules/.bin/prism"),
    [
      "proxy",
      fromRoot("generated/openapi.json"),
      upstream,
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      "--validate-request",
      "false",
      "--errors",
      "false",
      "--cors",
      "false",
    ],
    {
      cwd: fromRoot(),
      env: {
        ...process.env,
        NO_COLOR: "1",
        FORCE_COLOR: "0",
        DO_NOT_TRACK: "1",
        SCARF_ANALYTICS: "false",
        // Prism has no analytics of its own; the guard shows it reaches nothing but the upstream.
        NO_NETWORK_LOG: networkLog,
        NODE_OPTIONS: `--import ${pathToFileURL(fromRoot("test/support/no-network.mjs")).href}`,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`prism proxy did not start:\n${log.join("")}`)), 60_000);
    const onData = (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      log.push(text);
      for (const line of text.split("\n")) if (/Violation: response/i.test(line)) logged.push(line.trim());
      if (/Prism is listening/.test(text)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`prism proxy exited with ${code}:\n${log.join("")}`));
    });
  });

  const judgingFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const target = new URL(request.url);
    const exchange = `${request.method} ${target.pathname}`;
    if (target.origin !== new URL(upstream).origin || !target.pathname.startsWith("/api/"))
      return fetch(request);
    const reason = await notJudgeable(request);
    if (reason) {
      around.push(`${exchange}: ${reason}`);
      return fetch(request);
    }
    const body = request.method === "GET" ? undefined : await request.arrayBuffer();
    const response = await fetch(new URL(target.pathname + target.search, url), {
      method: request.method,
      headers: request.headers,
      body,
      redirect: "manual",
      signal: request.signal,
    });
    judged.push(`${exchange} → ${response.status}`);
    const header = response.headers.get("sl-violations");
    if (header) {
      let found: { location?: string[]; severity?: string; message?: string }[];
      try {
        found = JSON.parse(header);
      } catch {
        found = [{ location: ["response"], severity: "Error", message: header.slice(0, 500) }];
      }
      for (const v of found)
        if (v.location?.[0] === "response")
          violations.push({
            exchange: `${exchange} → ${response.status}`,
            location: (v.location ?? []).join("."),
            severity: v.severity ?? "",
            message: v.message ?? "",
          });
    }
    return response;
  };

  return {
    url,
    fetch: judgingFetch as typeof fetch,
    violations,
    logged,
    network: () =>
      existsSync(networkLog) ? readFileSync(networkLog, "utf8").split("\n").filter(Boolean) : [],
    judged,
    around,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.removeAllListeners("exit");
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
