// Hostile input for property tests: what a stranger can send to the mock, the sandbox, the proxy,
// the CLI and the webhook helpers. Every part of the toolkit runs on untrusted bytes, so each
// property draws from these and asserts the same invariants: the process lives, nothing is
// poisoned, no canary leaks, unusable input gets a clear error.
import { once } from "node:events";
import { connect, createServer, type AddressInfo, type Socket } from "node:net";
import fc from "fast-check";

/** Values that stand for personal data and credentials: none may appear in any output. */
export const CANARIES = [
  "CANARY-SECRET-123",
  "jane.canary@example.com",
  "QQ123456C", // a national insurance number
  "+447700900123",
  "1985-03-14-CANARY",
] as const;

/** True when text contains any canary. */
export const containsCanary = (text: string): boolean => CANARIES.some((canary) => text.includes(canary));

/** One canary. */
export const canary = (): fc.Arbitrary<string> => fc.constantFrom(...CANARIES);

/** Member names that mean something to a plain object's prototype chain. */
export const PROTOTYPE_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "valueOf",
  "hasOwnProperty",
  "__defineGetter__",
  "isPrototypeOf",
] as const;

/** A member name: usually a prototype key, sometimes a canary, sometimes ordinary. */
export const hostileKey = (): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...PROTOTYPE_KEYS) },
    { weight: 1, arbitrary: canary() },
    { weight: 2, arbitrary: fc.string({ maxLength: 12 }) },
  );

/** Numbers JSON allows that code often mishandles. */
export const oddNumber = (): fc.Arbitrary<number> =>
  fc.oneof(
    fc.constantFrom(-0, 1e308, -1e308, 5e-324, 2 ** 53 + 1, -(2 ** 53) - 1, 1e21, 0.1 + 0.2),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
  );

/** Strings that are long, contain lone surrogates, controls or canaries. */
export const oddString = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ unit: "binary", maxLength: 40 }),
    fc.constantFrom("\ud800", "\udfff", "a\u0000b", "\u202e", "%00", "../../etc/passwd", "${jndi:x}"),
    canary(),
    fc.integer({ min: 10_000, max: 200_000 }).map((n) => "x".repeat(n)),
  );

/**
 * A JSON value (as parsed: own members may be named `__proto__`) with prototype keys at every
 * depth, odd numbers and odd strings.
 */
export const hostileJsonValue = (maxDepth = 6): fc.Arbitrary<unknown> =>
  fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: "small", maxDepth },
      fc.constant(null),
      fc.boolean(),
      oddNumber(),
      oddString(),
      fc.array(tie("value"), { maxLength: 4 }),
      fc
        .array(fc.tuple(hostileKey(), tie("value")), { maxLength: 5 })
        .map((entries) =>
          JSON.parse(
            `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? "null"}`).join(",")}}`,
          ),
        ),
    ),
  })).value;

/** JSON text nested `depth` levels deep, arrays or objects, with a canary at the bottom. */
export const deeplyNested = (depth: number, kind: "array" | "object" = "array"): string =>
  kind === "array"
    ? `${"[".repeat(depth)}"${CANARIES[0]}"${"]".repeat(depth)}`
    : `${'{"a":'.repeat(depth)}"${CANARIES[0]}"${"}".repeat(depth)}`;

/** JSON text: hostile values, prototype members written literally, and very deep nesting. */
export const hostileJsonText = (): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: hostileJsonValue().map((v) => JSON.stringify(v) ?? "null") },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '{"__proto__":{"polluted":1}}',
        '{"constructor":{"prototype":{"polluted":1}}}',
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 1_000, max: 120_000 }), fc.constantFrom("array" as const, "object" as const))
        .map(([depth, kind]) => deeplyNested(depth, kind)),
    },
  );

/** Byte sequences that are not UTF-8: stray continuations, overlongs, surrogates, truncations. */
export const INVALID_UTF8 = [
  [0xff],
  [0xc3, 0x28],
  [0xc0, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xe2, 0x82],
  [0xf4, 0x90, 0x80, 0x80],
  [0x80],
] as const;

/** JSON bytes with one invalid UTF-8 sequence spliced into a string. */
export const invalidUtf8Json = (): fc.Arbitrary<Uint8Array> =>
  fc.tuple(fc.constantFrom(...INVALID_UTF8), fc.string({ maxLength: 10 })).map(([bad, text]) => {
    const before = Buffer.from(`{"reference":"${text.replace(/["\\]/g, "")}`);
    const after = Buffer.from('"}');
    return new Uint8Array(Buffer.concat([before, Buffer.from(bad), after]));
  });

/** Request targets that have crashed URL parsers: scheme-relative, bad escapes, bad ports. */
export const HOSTILE_TARGETS = [
  "//",
  "//%zz/api",
  "http://",
  "//a:99999/x",
  "*",
  "/%",
  "/%zz",
  "/api/v4/%ff%fe",
  "/api/v4/pep_checks?__proto__=x",
  "/api/v4/pep_checks?constructor[prototype][x]=1",
  "/api/v4/../../../etc/passwd",
  "/api/v4/outsource_cases/1e3",
  "/api/v4/outsource_cases/999999999999999999999",
  `/api/v4/outsource_cases/${CANARIES[0]}`,
  "http://[::1/x",
  "/\u0000",
] as const;

/** A request target: a known-bad one or a random mix of path characters. */
export const hostileTarget = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom(...HOSTILE_TARGETS),
    fc
      .array(
        fc.constantFrom(
          "/",
          "//",
          "%",
          "%zz",
          "%2f",
          "..",
          "?",
          "#",
          "__proto__",
          "api",
          "v4",
          ":",
          "@",
          "1e3",
        ),
        {
          maxLength: 8,
        },
      )
      .map((parts) => `/${parts.join("")}`),
  );

/** Header name/value pairs a stranger may send, including prototype keys and canaries. */
export const hostileHeaders = (): fc.Arbitrary<[string, string][]> =>
  fc.array(
    fc.tuple(
      fc.oneof(
        fc.constantFrom(...PROTOTYPE_KEYS),
        fc.constantFrom("content-type", "svc-api-key", "x-workflow-webhook-id", "prefer", "accept"),
      ),
      fc.oneof(
        canary(),
        fc.constantFrom("application/json-evil", "application/json; charset=latin1", "*/*", "example=nope"),
      ),
    ),
    { maxLength: 4 },
  );

/** A snapshot of the built-in prototypes' own members, to check nothing was added. */
export function prototypeSnapshot(): string {
  const names = (o: object) => Reflect.ownKeys(o).map(String).sort().join(",");
  return [Object.prototype, Array.prototype, Function.prototype, String.prototype].map(names).join("|");
}

/** Throws when the built-in prototypes differ from a snapshot, or an empty object has inherited a member. */
export function assertPrototypesUntouched(before: string): void {
  const after = prototypeSnapshot();
  if (after !== before) throw new Error(`a built-in prototype was changed: ${after}`);
  const probe: Record<string, unknown> = {};
  for (const key of ["polluted", "x", "base", "isAdmin"]) {
    if (key in probe) throw new Error(`Object.prototype gained "${key}"`);
  }
}

/**
 * Send raw bytes to a server and return what it answered: everything received until the server
 * closes, falls quiet for `quietMs` after answering, or `timeoutMs` passes; a reset answers "".
 * Raw, because fetch refuses to send the request lines that matter here. The socket stays open
 * for writing, as a real client's does: a half-close would let a server drop its answer.
 */
export function sendRaw(
  port: number,
  bytes: string | Uint8Array,
  timeoutMs = 2_000,
  host = "127.0.0.1",
  quietMs = 150,
): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect({ port, host });
    let quiet: NodeJS.Timeout | undefined;
    const done = () => {
      clearTimeout(timer);
      clearTimeout(quiet);
      socket.destroy();
      resolve(Buffer.concat(chunks).toString("latin1"));
    };
    const timer = setTimeout(done, timeoutMs);
    socket.on("connect", () => socket.write(bytes));
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      clearTimeout(quiet);
      quiet = setTimeout(done, quietMs);
    });
    socket.on("close", done);
    socket.on("error", done);
  });
}

/** The status code of a raw HTTP answer, or undefined when none came. */
export const rawStatus = (answer: string): number | undefined => {
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(answer);
  return match ? Number(match[1]) : undefined;
};

/** A peer on a raw socket: when a request's head has come, it writes `answer()` and ends the connection. */
export async function rawPeer(
  answer: () => string,
): Promise<{ port: number; url: string; requests(): number; close(): Promise<void> }> {
  let requests = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    let head = "";
    socket.on("data", (chunk: Buffer) => {
      if (head.includes("\r\n\r\n")) return;
      head += chunk.toString("latin1");
      if (!head.includes("\r\n\r\n")) return;
      requests++;
      socket.end(Buffer.from(answer(), "latin1"));
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, "close");
    },
  };
}
