// vectors/receiver.json: valid against its schema, as npm run build:vectors writes it now, the
// battery's own cases in the battery's order, versioned with the AsyncAPI contract, and shipped.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import asyncapi from "../../generated/asyncapi.json" with { type: "json" };
import {
  BATTERY_CASES,
  bodyBytes,
  planContext,
  type PlannedDelivery,
} from "../../conformance/receiver-check/battery-cases.js";
import { exampleDeliveries } from "../../conformance/receiver-check/example-deliveries.js";
import { RANDOM_IDS } from "../../conformance/receiver-check/receiver-session.js";
import { receiverVectorsText } from "../../conformance/receiver-check/vectors.js";
import { fromRoot } from "../../scripts/lib/paths.js";

interface Vector {
  id: string;
  case: string;
  url: "events" | "workflow";
  headers: Record<string, string>;
  body: { utf8?: string; base64?: string; repeated?: object; bytes: number; sha256: string };
  expect: { status: string[]; handler_runs: boolean };
}

const read = (file: string) => JSON.parse(readFileSync(fromRoot(file), "utf8"));
const committed = read("vectors/receiver.json");
const vectors = committed.vectors as Vector[];

/** What the battery plans to send, with its random ids. */
const battery = (): PlannedDelivery[] => {
  const context = planContext(exampleDeliveries(), RANDOM_IDS);
  return BATTERY_CASES.flatMap((c) => c.plan(context));
};

describe("the receiver test vectors", () => {
  it("are valid against vectors/receiver.schema.json (JSON Schema 2020-12)", () => {
    const ajv = new Ajv2020.default({ allErrors: true, strict: false });
    const validate = ajv.compile(read("vectors/receiver.schema.json"));
    expect(validate(committed), JSON.stringify(validate.errors)).toBe(true);
  });

  it("are what npm run build:vectors writes now (check:vectors)", () => {
    expect(readFileSync(fromRoot("vectors/receiver.json"), "utf8")).toBe(receiverVectorsText(asyncapi));
  });

  it("are the battery's cases, in its order, to the same URLs, judged the same way", () => {
    const planned = battery();
    expect(vectors.map((v) => v.case)).toEqual(planned.map((p) => p.case));
    expect(vectors.map((v) => v.url)).toEqual(planned.map((p) => p.target));
    expect(vectors.map((v) => v.expect.handler_runs)).toEqual(planned.map((p) => p.handlerRuns));
    for (const name of ["examples", "duplicates", "evolution", "credentials", "workflow"])
      expect(BATTERY_CASES.map((c) => c.name)).toContain(name);
  });

  it("carry the contract's version and digest", () => {
    expect(committed.contract.version).toBe(asyncapi.info.version);
    const digest = createHash("sha256").update(JSON.stringify(asyncapi)).digest("hex");
    expect(committed.contract.sha256).toBe(digest);
  });

  it("write each body's exact bytes, with their length and SHA-256", () => {
    const planned = battery();
    for (const [i, v] of vectors.entries()) {
      const bytes = v.body.repeated
        ? bodyBytes(planned[i]!.body)
        : Buffer.from(v.body.utf8 ?? "", v.body.utf8 === undefined ? "base64" : "utf8");
      expect(bytes.length, v.id).toBe(v.body.bytes);
      expect(createHash("sha256").update(bytes).digest("hex"), v.id).toBe(v.body.sha256);
    }
    // Bodies keep their bytes: the malformed one is not re-encoded, the large one is 10 MiB.
    expect(vectors.find((v) => v.case === "malformed JSON")?.body.utf8).toBe(
      '{"event": "created", "transaction_id": ',
    );
    expect(vectors.find((v) => v.body.repeated)?.body.bytes).toBe(10 * 1024 * 1024);
  });

  it("name credentials only by placeholder, and none on the workflow URL", () => {
    for (const v of vectors) {
      const auth = v.headers.Authorization;
      if (v.url === "workflow") expect(auth, v.id).toBeUndefined();
      else if (auth !== undefined) expect(["{{auth}}", "{{wrong_auth}}"], v.id).toContain(auth);
    }
    expect(vectors.filter((v) => v.headers.Authorization === undefined && v.url === "events")).toHaveLength(
      1,
    );
    expect(new Set(vectors.map((v) => v.id)).size).toBe(vectors.length);
  });

  it("are shipped: package.json exports and files name them", () => {
    const pkg = read("package.json");
    for (const file of ["vectors/receiver.json", "vectors/receiver.schema.json"]) {
      expect(pkg.exports[`./${file}`]).toBe(`./${file}`);
      expect(pkg.files).toContain(file);
    }
    expect(pkg.scripts["check:vectors"]).toContain("--check");
  });
});
