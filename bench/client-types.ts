// npm run bench:client-types — what the typed client costs the type checker of an integrator's app:
// small consumer files, each making a few calls, checked by `tsc --noEmit --extendedDiagnostics` with
// the project's strict settings against the package's emitted declarations (as an installed package is
// read, with skipLibCheck), beside a plain openapi-fetch client of the same contract. Writes its section
// of docs/benchmarks.md.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { median, writeBenchSection } from "../scripts/lib/benchmarks-md.js";
import { fromRoot, ROOT } from "../scripts/lib/paths.js";
import { QUIET_ENV } from "../scripts/lib/run-tool.js";

const ROUNDS = Number(process.env.BENCH_CLIENT_TYPES_ROUNDS) || 5;
const TSC = fromRoot("node_modules/typescript/bin/tsc");

const CLIENT = `import { createClient } from "./build/src/index.js";
const idv = createClient({ baseUrl: "https://idv.test", apiKey: "key", secret: "secret" });
`;
const PLAIN = `import createClient from "openapi-fetch";
import type { paths } from "./build/generated/types.js";
const idv = createClient<paths>({ baseUrl: "https://idv.test" });
`;
const POSTS = `export async function calls() {
  await idv.POST("/api/v4/pep_checks", {
    body: { reference: "pep-1", firstname: "A", lastname: "B", date_of_birth: "02/03/1990" },
  });
  await idv.POST("/api/v2/manual_eidv", {
    body: {
      metadata: { reference: "r" },
      individual: { first_name: "A", last_name: "B", date_of_birth: "1990-03-02" },
      address: { line_1: "1 High St", postcode: "AB1 2CD", country: "GBR", city: "London" },
    },
  });
}
`;

/** Each consumer file: what it makes the checker do, and its source. */
const FIXTURES: { name: string; what: string; source: string }[] = [
  { name: "none", what: "idv client, created, no call", source: `${CLIENT}export { idv };\n` },
  { name: "posts", what: "idv client, two `POST`s", source: CLIENT + POSTS },
  {
    name: "download",
    what: "idv client, one `download()`",
    source: `${CLIENT}export const pdf = idv.download("get", "/api/v4/pdf/pep_checks/{id}", {
  params: { path: { id: 7 } },
});
`,
  },
  {
    name: "upload",
    what: "idv client, one `upload()`",
    source: `${CLIENT}export const uploaded = idv.upload("post", "/api/v4/outsource_cases/{id}/upload", {
  params: { path: { id: 7 } },
  file: new Blob(["x"], { type: "text/plain" }),
});
`,
  },
  { name: "plain-posts", what: "plain openapi-fetch, the same two `POST`s", source: PLAIN + POSTS },
];

// Under node_modules/ so that the declarations resolve openapi-fetch as an installed package's would.
mkdirSync(fromRoot("node_modules/.cache"), { recursive: true });
const dir = mkdtempSync(fromRoot("node_modules/.cache/bench-client-types-"));
type Figures = { types: number; instantiations: number; checkMs: number };
const results = new Map<string, Figures[]>();
try {
  // The declarations the package ships (dist/src, dist/generated), emitted without a check of their own.
  execFileSync(
    process.execPath,
    [TSC, "-p", "tsconfig.build.json", "--outDir", join(dir, "build"), "--emitDeclarationOnly", "--noCheck"],
    { cwd: ROOT, env: QUIET_ENV },
  );
  writeFileSync(join(dir, "package.json"), '{"type":"module"}\n');
  for (const { name, source } of FIXTURES) {
    writeFileSync(join(dir, `${name}.ts`), source);
    writeFileSync(
      join(dir, `${name}.tsconfig.json`),
      JSON.stringify({
        extends: fromRoot("tsconfig.json"),
        compilerOptions: { noEmit: true, skipLibCheck: true, types: [] },
        // Only the fixture: the base's own "include" (the whole repository) would be inherited otherwise.
        files: [`${name}.ts`],
        include: [],
      }),
    );
  }
  // The fixtures take turns within a round, so that load from elsewhere falls on all alike.
  for (let round = 0; round < ROUNDS; round++) {
    for (const { name } of FIXTURES) {
      const figures = check(join(dir, `${name}.tsconfig.json`));
      results.set(name, [...(results.get(name) ?? []), figures]);
    }
    process.stderr.write(`round ${round + 1}/${ROUNDS}\n`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** One `tsc --extendedDiagnostics` run of a fixture: its Types, Instantiations and Check time. */
function check(project: string): Figures {
  let stdout: string;
  try {
    stdout = execFileSync(process.execPath, [TSC, "--noEmit", "--extendedDiagnostics", "-p", project], {
      cwd: ROOT,
      env: QUIET_ENV,
      encoding: "utf8",
    });
  } catch (error) {
    // A fixture that no longer compiles measures nothing: say what tsc said.
    throw new Error(`tsc -p ${project} failed:\n${(error as { stdout?: string }).stdout ?? error}`, {
      cause: error,
    });
  }
  const read = (label: string): number => {
    const match = new RegExp(`^${label}:\\s+([\\d.]+)`, "m").exec(stdout);
    if (!match?.[1]) throw new Error(`no "${label}" line in tsc's diagnostics`);
    return Number(match[1]);
  };
  return { types: read("Types"), instantiations: read("Instantiations"), checkMs: read("Check time") * 1000 };
}

const int = (n: number) => Math.round(n).toLocaleString("en-US");
const cell = (values: number[], format: (n: number) => string) =>
  `${format(median(values))} (${format(Math.min(...values))}–${format(Math.max(...values))})`;
const seconds = (ms: number) => (ms / 1000).toFixed(2);
const figures = (name: string) => results.get(name) ?? [];
const plainTypes = median(figures("plain-posts").map((f) => f.types));
const rows = FIXTURES.map(({ name, what }) => {
  const runs = figures(name);
  const types = runs.map((f) => f.types);
  return `| ${what} | ${cell(types, int)} | ${cell(
    runs.map((f) => f.instantiations),
    int,
  )} | ${cell(
    runs.map((f) => f.checkMs),
    seconds,
  )} | ${(median(types) / plainTypes).toFixed(2)}× |`;
});
const table = `| Consumer file | Types | Instantiations | Check time (s) | Types ÷ plain POSTs |
|---|---|---|---|---|
${rows.join("\n")}`;
process.stdout.write(`${table}\n`);

writeBenchSection(
  "client-types",
  `## Typed client in the type checker (\`npm run bench:client-types\`)

What the client's types cost an integrator's \`tsc\`: one small consumer file per row, checked alone by
\`tsc --noEmit --extendedDiagnostics\` with the project's strict settings and \`skipLibCheck\`, against the
package's emitted declarations (as an installed package is read), beside plain openapi-fetch
(\`createClient<paths>()\` over the same generated \`paths\`) making the same two \`POST\`s. Each figure
is the median of ${ROUNDS} rounds (min–max), the files taking turns within a round; "Types" and
"Instantiations" do not vary between runs, "Check time" does. Measured
${new Date().toISOString().slice(0, 10)}, Node ${process.version}, TypeScript ${tscVersion()}.

Target: a \`download()\` or an \`upload()\` costs no more than about three \`POST\`s.

${table}`,
);

/** The TypeScript version the figures were measured with. */
function tscVersion(): string {
  return execFileSync(process.execPath, [TSC, "--version"], { encoding: "utf8" })
    .trim()
    .replace(/^Version /, "");
}
