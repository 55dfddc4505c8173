// What a call of the typed client costs an integrator's type checker, counted in types the checker
// builds (a count, the same on every run of one TypeScript version, unlike check time). Each consumer
// file is checked alone in a fresh program; its cost is what it adds to a file that only creates the
// client. bench/client-types.ts measures the same beside plain openapi-fetch, with times.
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";

const CLIENT = `import { createClient } from "../../../src/index.js";
const idv = createClient({ baseUrl: "https://idv.test", apiKey: "key", secret: "secret" });
export { idv };
`;
const CALLS = {
  none: "",
  posts: `export const calls = async () => {
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
};
`,
  download: `export const pdf = idv.download("get", "/api/v4/pdf/pep_checks/{id}", { params: { path: { id: 7 } } });\n`,
  downloadStream: `export const pdf = idv.downloadStream("put", "/api/v2/manual_eidv/{transaction_id}/export_and_archive", {
  params: { path: { transaction_id: "t" } },
  body: {},
});
`,
  upload: `export const uploaded = idv.upload("post", "/api/v4/outsource_cases/{id}/upload", {
  params: { path: { id: 7 } },
  file: new Blob(["x"], { type: "text/plain" }),
});
`,
};
type Name = keyof typeof CALLS;

const config = ts.parseJsonConfigFileContent(
  ts.readConfigFile(fromRoot("tsconfig.json"), ts.sys.readFile).config,
  ts.sys,
  fromRoot("."),
);
const options = { ...config.options, noEmit: true };
// Parsed once for every program: only the checker is fresh each time.
const parsed = new Map<string, ts.SourceFile | undefined>();
const host = ts.createCompilerHost(options);
const getSourceFile = host.getSourceFile;
const fixture = (name: Name) => fromRoot(`test/client/fixtures/type-cost-${name}.ts`);
const virtual = new Map(Object.keys(CALLS).map((name) => [fixture(name as Name), name as Name]));
host.getSourceFile = (file, version, ...rest) => {
  const name = virtual.get(file);
  if (name) return ts.createSourceFile(file, CLIENT + CALLS[name], version);
  if (!parsed.has(file)) parsed.set(file, getSourceFile.call(host, file, version, ...rest));
  return parsed.get(file);
};
const fileExists = host.fileExists;
host.fileExists = (file) => virtual.has(file) || fileExists.call(host, file);

/** The types the checker builds for one consumer file alone, and the file's errors. */
function typesOf(name: Name): { types: number; errors: string[] } {
  const program = ts.createProgram([fixture(name)], options, host);
  // The checker's own global types, built when it is made, are not the file's.
  const before = program.getTypeCount();
  const diagnostics = program.getSemanticDiagnostics(program.getSourceFile(fixture(name)));
  return {
    types: program.getTypeCount() - before,
    errors: diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n")),
  };
}

describe("what the client's calls cost the type checker", () => {
  const cost = {} as Record<Name, number>;

  beforeAll(() => {
    const base = typesOf("none");
    expect(base.errors).toEqual([]);
    for (const name of Object.keys(CALLS) as Name[]) {
      const { types, errors } = typesOf(name);
      expect(errors, name).toEqual([]);
      cost[name] = types - base.types;
    }
  }, 240_000);

  it.each(["download", "downloadStream", "upload"] as const)(
    "%s() builds no more types than three POSTs",
    (name) => {
      // Two POSTs measured; three are half as much again.
      expect(cost.posts).toBeGreaterThan(0);
      expect(cost[name]).toBeLessThanOrEqual(cost.posts * 1.5);
    },
  );
});
