// One side of the conformance benchmark, run in its own process (compiled, plain node) so that the
// timings and memory of idv-conformance and Prism's validator do not disturb each other.
//   node conformance-child.js ours|prism CORPUS.ndjson   → one JSON line: {rate, ms, maxRssMb, verdicts}
//   node conformance-child.js prism-first ONE.ndjson     → prints the first verdict as soon as it has it
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { exchangeFromNdjson, openConformanceChecker } from "../conformance/index.js";
import spec from "../generated/openapi.json" with { type: "json" };

// Prism's types are not needed to drive it.
type Any = any;

/** A verdict: conforms or not, and the checks (ours) or messages (Prism) that said no. */
interface Verdict {
  ok: boolean;
  checks: string[];
}

type Judge = (line: string, index: number) => Verdict;

/** Our checker, opened as the CLI opens it (build-time validators when they match the contract). */
async function ours(): Promise<Judge> {
  const checker = await openConformanceChecker();
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
  const parseBody = (body: unknown, headers: Record<string, string>): unknown => {
    if (typeof body !== "string") return body;
    const type = Object.entries(headers).find(([k]) => k.toLowerCase() === "content-type")?.[1] ?? "";
    if (!type.includes("json")) return body;
    try {
      return JSON.parse(body);
    } catch {
      return body;
    }
  };
  return (line) => {
    const raw = JSON.parse(line);
    const url = new URL(raw.request.url);
    const headers: Record<string, string> = { ...raw.request.headers };
    if (raw.request.body !== undefined)
      headers["content-length"] = String(Buffer.byteLength(String(raw.request.body)));
    const request = {
      method: raw.request.method.toLowerCase(),
      url: { path: url.pathname, query: Object.fromEntries(url.searchParams) },
      headers,
      body: parseBody(raw.request.body, headers),
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
      const response = {
        statusCode: raw.response.status,
        headers: raw.response.headers ?? {},
        body: parseBody(raw.response.body, raw.response.headers ?? {}),
      };
      problems.push(...errors(validateOutput({ resource, element: response })));
    }
    return { ok: problems.length === 0, checks: [...new Set(problems)] };
  };
}

async function main(): Promise<void> {
  const [mode, file] = process.argv.slice(2);
  if (!file) throw new Error("usage: conformance-child ours|prism|prism-first FILE");
  const lines = readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "");
  if (mode === "prism-first") {
    const judge = await prism();
    process.stdout.write(`${JSON.stringify(judge(lines[0] as string, 0))}\n`);
    return;
  }
  const judge = mode === "prism" ? await prism() : await ours();
  // Cold pass: validators compile on first use, as in a real run.
  const start = performance.now();
  const verdicts = lines.map((line, i) => judge(line, i));
  const coldMs = performance.now() - start;
  const warmStart = performance.now();
  for (let i = 0; i < lines.length; i++) judge(lines[i] as string, i);
  const warmMs = performance.now() - warmStart;
  process.stdout.write(
    `${JSON.stringify({
      exchanges: lines.length,
      coldRate: lines.length / (coldMs / 1000),
      warmRate: lines.length / (warmMs / 1000),
      maxRssMb: process.resourceUsage().maxRSS / 1024,
      verdicts,
    })}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
