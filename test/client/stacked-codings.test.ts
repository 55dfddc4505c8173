// An answer naming more than five content codings, with a body shorter than it announces: undici's fetch
// rejects, then throws an uncaught SocketError from a stream it left behind when the connection ends,
// and the caller's process exits (Node 20 to 26). The client runs in a child process here, so that such
// an error shows as a non-zero exit rather than as a crash of the test runner.
import { spawn } from "node:child_process";
import { createServer as createHttpServer } from "node:http";
import { type AddressInfo, createServer } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { codingsIn, MAX_CODINGS } from "../../src/client/content-codings.js";
import { createClient } from "../../src/index.js";
import { fromRoot } from "../../scripts/lib/paths.js";

/** Per case (the id of the GET, or "post"), the Content-Encoding header lines of the answer. */
const ANSWERS: Record<string, string[]> = {
  "6": ["gzip, gzip, gzip, gzip, gzip, gzip"],
  "7": ["gzip, br", "deflate, gzip", "GZIP, x-gzip"],
  "50": [Array(50).fill("gzip").join(",")],
  post: ["br,br,br,br,br,br,br"],
  // Six empty lines are six codings to fetch (", , , , , ").
  "8": ["", "", "", "", "", ""],
  // Five are decoded as usual: the call fails on the body, the process lives on.
  "5": ["gzip, gzip, gzip, gzip, gzip"],
};

const requested: string[] = [];
const closed: Promise<void>[] = [];
const server = createServer((socket) => {
  closed.push(new Promise((resolve) => socket.once("close", () => resolve())));
  socket.on("error", () => {});
  socket.once("data", (head: Buffer) => {
    const target = head.toString("latin1").split(" ")[1] ?? "";
    requested.push(target);
    const lines = ANSWERS[target.startsWith("/api/v4/pep_checks") ? "post" : (target.split("/").pop() ?? "")];
    const codings = (lines ?? []).map((value) => `Content-Encoding: ${value}\r\n`).join("");
    // Ten bytes announced, five sent, then the connection ends.
    socket.end(
      `HTTP/1.1 200 OK\r\n${codings}Content-Type: application/json\r\nContent-Length: 10\r\n\r\nhello`,
    );
  });
});
let baseUrl = "";
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Runs the client in a child process until the service has closed every connection. */
function runChild(ids: string[]): Promise<{ status: number | null; lines: unknown[]; stderr: string }> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", fromRoot("test/client/fixtures/stacked-codings-child.ts"), baseUrl, ...ids],
    { cwd: fromRoot(), stdio: ["pipe", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    // Every call has settled: once every connection is closed, the child may end.
    if (stdout.includes('"handlers"')) void Promise.all(closed).then(() => child.stdin.end());
  });
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.on("error", () => {});
  return new Promise((resolve) =>
    child.on("close", (status) =>
      resolve({
        status,
        stderr,
        lines: stdout
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line) as unknown),
      }),
    ),
  );
}

describe("an answer naming more content codings than fetch decodes", () => {
  it("fails the call, and the caller's process lives on", async () => {
    const { status, lines, stderr } = await runChild(["6", "7", "8", "50", "post", "5"]);
    expect(stderr).not.toMatch(/SocketError|other side closed/);
    expect(status).toBe(0);
    const refusal = (n: number) =>
      `the response names ${n} content codings (at most ${MAX_CODINGS} are read)`;
    expect(lines).toEqual([
      { id: "6", settled: "rejected", error: "TypeError", cause: refusal(6) },
      { id: "7", settled: "rejected", error: "TypeError", cause: refusal(6) },
      { id: "8", settled: "rejected", error: "TypeError", cause: refusal(6) },
      { id: "50", settled: "rejected", error: "TypeError", cause: refusal(50) },
      { id: "post", settled: "rejected", error: "TypeError", cause: refusal(7) },
      {
        id: "5",
        settled: "rejected",
        // The answer is read, and its connection then fails: a connection error, not a refusal.
        error: "IdvConnectionError",
        cause: expect.not.stringMatching(/content codings/),
      },
      { handlers: 0 },
    ]);
    // The same answer would come again: a refused GET is not retried (a failed body is, as any network error).
    expect(requested.filter((target) => target.endsWith("/6") || target.endsWith("/50"))).toHaveLength(2);
  }, 30_000);
});

describe("codingsIn", () => {
  it("counts codings as fetch does: the header lines joined with commas, then split on commas", () => {
    const coding = fc.constantFrom("gzip", "br", "deflate", "x-gzip", "", " ", "identity", "GZIP");
    fc.assert(
      fc.property(fc.array(fc.array(coding, { minLength: 1, maxLength: 8 }), { maxLength: 7 }), (lines) => {
        const values = lines.map((line) => line.join(","));
        // What undici's fetch does with the lines (lib/web/fetch: HeadersList, then the codings' split).
        const joined = values.join(", ");
        const fetchCount = joined ? joined.split(",").length : 0;
        expect(codingsIn(values)).toBe(fetchCount);
        // Raw header values arrive as bytes from undici 6 and 7.
        expect(codingsIn(values.map((value) => Buffer.from(value, "latin1")))).toBe(fetchCount);
        if (values.length === 1) expect(codingsIn(values[0])).toBe(fetchCount);
      }),
    );
  });
});

/** Where undici keeps the global dispatcher: version 1 for undici 6 and 7's fetch, 2 for undici 8's. */
const GLOBALS = [Symbol.for("undici.globalDispatcher.1"), Symbol.for("undici.globalDispatcher.2")];
type Dispatch = { dispatch(options: unknown, handler: unknown): boolean };
const slots = globalThis as unknown as Record<symbol, Dispatch | undefined>;

describe("the dispatcher the guard sends through", () => {
  // A complete answer (no early close): without the guard, fetch refuses it with its own message and lives on.
  const plain = createHttpServer((req, res) => {
    const codings = req.url?.endsWith("/6") ? { "Content-Encoding": "gzip,gzip,gzip,gzip,gzip,gzip" } : {};
    res.writeHead(200, { "Content-Type": "application/json", ...codings }).end("{}");
  });
  let url = "";
  beforeAll(async () => {
    await new Promise<void>((resolve) => plain.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => plain.close(() => resolve())));

  const get = (client: ReturnType<typeof createClient>, id: number) =>
    client.GET("/api/v4/outsource_cases/{id}", { params: { path: { id } } });
  const refused = {
    cause: { message: `the response names 6 content codings (at most ${MAX_CODINGS} are read)` },
  };
  /** A dispatcher that counts what it is handed, then sends it through `inner`. */
  const counting = (inner: Dispatch) => {
    const seen = { count: 0 };
    const dispatcher = {
      dispatch: (options: unknown, handler: unknown) => (seen.count++, inner.dispatch(options, handler)),
    };
    return { seen, dispatcher };
  };

  it("is the caller's own when the client is given one (requestInitExt), still guarded", async () => {
    const { seen, dispatcher } = counting((slots[GLOBALS[1]!] ?? slots[GLOBALS[0]!])!);
    const client = createClient({ baseUrl: url, apiKey: "k", secret: "s", requestInitExt: { dispatcher } });
    expect((await get(client, 1)).response.status).toBe(200);
    expect(seen.count).toBe(1);
    await expect(get(client, 6)).rejects.toMatchObject(refused);
    expect(seen.count).toBe(2);
  });

  it("is the global one, guarded, when the client is given a dispatcher of null", async () => {
    const client = createClient({
      baseUrl: url,
      apiKey: "k",
      secret: "s",
      requestInitExt: { dispatcher: null },
    });
    expect((await get(client, 1)).response.status).toBe(200);
    await expect(get(client, 6)).rejects.toMatchObject(refused);
  });

  it("is the global one a user installed (a proxy agent, a MockAgent), still guarded", async () => {
    const saved = GLOBALS.map((symbol) => slots[symbol]);
    const counted = saved.map((inner) => (inner ? counting(inner) : undefined));
    try {
      GLOBALS.forEach((symbol, i) => counted[i] && (slots[symbol] = counted[i].dispatcher));
      const client = createClient({ baseUrl: url, apiKey: "k", secret: "s" });
      expect((await get(client, 1)).response.status).toBe(200);
      await expect(get(client, 6)).rejects.toMatchObject(refused);
      expect(counted.reduce((sum, c) => sum + (c?.seen.count ?? 0), 0)).toBe(2);
    } finally {
      GLOBALS.forEach((symbol, i) => saved[i] && (slots[symbol] = saved[i]));
    }
  });

  it("is fetch's own, unguarded, when no global dispatcher is where the guard looks (a later undici)", async () => {
    // Such a fetch keeps its default dispatcher elsewhere: every request must still be sent.
    const saved = GLOBALS.map((symbol) => slots[symbol]);
    const fetchDefault = (saved[1] ?? saved[0])!;
    const realFetch = globalThis.fetch;
    try {
      for (const symbol of GLOBALS) if (slots[symbol]) slots[symbol] = undefined;
      vi.stubGlobal("fetch", (input: Request, init?: RequestInit & { dispatcher?: unknown }) =>
        realFetch(input, { ...init, dispatcher: init?.dispatcher ?? fetchDefault } as RequestInit),
      );
      const client = createClient({ baseUrl: url, apiKey: "k", secret: "s", retry: false });
      expect((await get(client, 1)).response.status).toBe(200);
    } finally {
      vi.unstubAllGlobals();
      GLOBALS.forEach((symbol, i) => saved[i] && (slots[symbol] = saved[i]));
    }
  });
});

describe("a refusal is final, any other failure is retried as before", () => {
  it("retries a GET whose fetch rejected with something that is not an Error (null, undefined, a string)", async () => {
    for (const reason of [undefined, null, "offline"]) {
      let calls = 0;
      const client = createClient({
        baseUrl: "http://127.0.0.1:9",
        apiKey: "k",
        secret: "s",
        retry: { retries: 1, baseDelayMs: 1, maxDelayMs: 1 },
        fetch: async () => {
          if (calls++ === 0) throw reason;
          return new Response("{}", { headers: { "Content-Type": "application/json" } });
        },
      });
      const { response } = await client.GET("/api/v4/outsource_cases/{id}", { params: { path: { id: 1 } } });
      expect(response.status).toBe(200);
      expect(calls).toBe(2);
    }
  });
});
