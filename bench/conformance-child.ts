// One side of the conformance benchmark, run in its own process (compiled, plain node) so that the
// timings and memory of idv-conformance and Prism's validator do not disturb each other.
//   node conformance-child.js create|open|prism|floor CORPUS.ndjson → one JSON line: CPU and wall times, verdicts
//   node conformance-child.js prism-first ONE.ndjson     → prints the first verdict as soon as it has it
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import spec from "../generated/openapi.json" with { type: "json" };

// Prism's types are not needed to drive it.
type Any = any;

/** A verdict: conforms or not, and the checks (ours) or messages (Prism) that said no. */
interface Verdict {
  ok: boolean;
  checks: string[];
}

type Judge = (line: string, index: number) => Verdict;

/**
 * Our checker: `open` as the CLI opens it (build-time validators when they match the contract), `create`
 * as a library user creates it (each validator compiled by ajv on first use).
 */
async function ours(mode: "create" | "open"): Promise<Judge> {
  // Loaded here, not at the top: the Prism side must not pay for our modules, nor ours for Prism's.
  const { createConformanceChecker, exchangeFromNdjson, openConformanceChecker } =
    await import("../conformance/index.js");
  const checker = mode === "open" ? await openConformanceChecker() : createConformanceChecker();
  return (line, index) => {
    const result = checker.checkExchange(exchangeFromNdjson(JSON.parse(line), index, index + 1));
    // The bench's own bookkeeping: a clean result has no checks to list, so none are collected.
    if (result.violations.length === 0 && result.warnings.length === 0) return { ok: result.ok, checks: [] };
    return {
      ok: result.ok,
      checks: [...new Set([...result.violations, ...result.warnings].map((v) => v.check))],
    };
  };
}

/**
 * The floor: what no checker of recorded JSON traffic can skip. `JSON.parse` of the line, base64 decoding,
 * `JSON.parse` of every body whose Content-Type says JSON; nothing else. Its verdict is always "ok".
 */
function floor(): Judge {
  const isJson = (headers: unknown): boolean => {
    if (!Array.isArray(headers)) return false;
    for (const h of headers)
      if (String(h?.name).toLowerCase() === "content-type") return String(h.value).includes("json");
    return false;
  };
  const parse = (message: Any): void => {
    if (typeof message?.body !== "string") return;
    const text =
      message.bodyEncoding === "base64" ? Buffer.from(message.body, "base64").toString("utf8") : message.body;
    if (!isJson(message.headers)) return;
    try {
      JSON.parse(text);
    } catch {
      // Not JSON: the floor does no more than try.
    }
  };
  return (line) => {
    const raw = JSON.parse(line);
    parse(raw.request);
    parse(raw.response);
    return { ok: true, checks: [] };
  };
}

async function prism(): Promise<Judge> {
  const require = createRequire(import.meta.url);
  const { getHttpOperationsFromSpec } = require("@stoplight/prism-http");
  const { validateInput, validateOutput, validateSecurity } = require("@stoplight/prism-http/dist/validator");
  const route = require("@stoplight/prism-http/dist/router").default;
  const resources = await getHttpOperationsFromSpec(structuredClone(spec));
  const errors = (either: Any): string[] =>
    either._tag === "Left"
      ? either.left.filter((d: Any) => d.severity === 0).map((d: Any) => String(d.code ?? "error"))
      : [];
  // Headers as Node's HTTP server hands them to Prism's own proxy: names lower-cased, one value each.
  const headersOf = (raw: unknown): Record<string, string> => {
    const out: Record<string, string> = {};
    if (Array.isArray(raw)) for (const h of raw) out[String(h.name).toLowerCase()] = String(h.value);
    else if (raw && typeof raw === "object")
      for (const [k, v] of Object.entries(raw)) out[k.toLowerCase()] = String(v);
    return out;
  };
  // Bodies as Prism's server reads them: base64 decoded, JSON parsed when the media type says JSON.
  const parseBody = (message: Any, headers: Record<string, string>): unknown => {
    const { body } = message;
    if (typeof body !== "string") return body;
    const text = message.bodyEncoding === "base64" ? Buffer.from(body, "base64").toString("utf8") : body;
    if (!/^application\/([a-z.+-]+\+)?json\s*(;|$)/.test(headers["content-type"] ?? "")) return text;
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  };
  return (line) => {
    const raw = JSON.parse(line);
    const url = new URL(raw.request.url);
    const headers = headersOf(raw.request.headers);
    if (raw.request.body !== undefined)
      headers["content-length"] = String(Buffer.byteLength(String(raw.request.body)));
    const request = {
      method: raw.request.method.toLowerCase(),
      url: { path: url.pathname, query: Object.fromEntries(url.searchParams) },
      headers,
      body: parseBody(raw.request, headers),
    };
    const matched = route({ resources, input: request });
    if (matched._tag === "Left") return { ok: false, checks: ["route"] };
    const resource = matched.right;
    const problems = [
      ...errors(validateSecurity({ resource, element: request })),
      ...errors(validateInput({ resource, element: request })),
    ];
    if (!raw.response) problems.push("no response");
    else {
      const responseHeaders = headersOf(raw.response.headers);
      const response = {
        statusCode: raw.response.status,
        headers: responseHeaders,
        body: parseBody(raw.response, responseHeaders),
      };
      problems.push(...errors(validateOutput({ resource, element: response })));
    }
    return { ok: problems.length === 0, checks: [...new Set(problems)] };
  };
}

async function main(): Promise<void> {
  const [mode, file] = process.argv.slice(2);
  if (!file) throw new Error("usage: conformance-child create|open|prism|floor|prism-first FILE");
  const cpu = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  const beforeRead = cpu();
  const lines = readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "");
  const readCpu = cpu() - beforeRead;
  if (mode === "prism-first") {
    const judge = await prism();
    process.stdout.write(`${JSON.stringify(judge(lines[0] as string, 0))}\n`);
    return;
  }
  if (mode !== "prism" && mode !== "create" && mode !== "open" && mode !== "floor")
    throw new Error(`unknown mode ${mode}`);
  // Cold: from the start of the process (Node's own start, module loading, the contract, every
  // validator's first use) to the end of the first pass. Reading the corpus file is left out on both sides.
  const judge = mode === "prism" ? await prism() : mode === "floor" ? floor() : await ours(mode);
  const verdicts = lines.map((line, i) => judge(line, i));
  const coldCpuMs = cpu() - readCpu;
  const coldWallMs = performance.now();
  const warmCpuStart = cpu();
  const warmWallStart = performance.now();
  for (let i = 0; i < lines.length; i++) judge(lines[i] as string, i);
  const warmCpuMs = cpu() - warmCpuStart;
  const warmWallMs = performance.now() - warmWallStart;
  process.stdout.write(
    `${JSON.stringify({
      exchanges: lines.length,
      coldCpuMs,
      coldWallMs,
      warmCpuMs,
      warmWallMs,
      maxRssMb: process.resourceUsage().maxRSS / 1024,
      verdicts,
    })}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
