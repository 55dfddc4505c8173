// What tools nobody here wrote found in the contract: every request e-mail member says, with an
// x-gap, that its rule is narrower than JSON Schema's `format: email` (and the servers keep that
// rule); the export's x-gap and its exportAgain link agree on what a second export answers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningMock } from "../../mock/server.js";
import { startMock } from "../../mock/server.js";
import { deref, type Json, loadOpenApi } from "../support/contract.js";
import { credentialsFor } from "../support/mock.js";

const doc = loadOpenApi();
const gapsOf = (node: Json): Json[] => [node?.["x-gap"] ?? []].flat();

/** Every `format: email` member of a request body schema, by its pointer. */
function requestEmailMembers(): [string, Json][] {
  const found: [string, Json][] = [];
  const walk = (node: Json, at: string, seen: Set<Json>) => {
    if (!node || typeof node !== "object" || seen.has(node)) return;
    seen.add(node);
    if (node.format === "email") found.push([at, node]);
    if (typeof node.$ref === "string") walk(deref(doc, node), node.$ref, seen);
    for (const [k, v] of Object.entries<Json>(node)) if (k !== "$ref") walk(v, `${at}/${k}`, seen);
  };
  for (const [path, item] of Object.entries<Json>(doc.paths))
    for (const op of Object.values<Json>(item))
      if (op?.requestBody) walk(deref(doc, op.requestBody), `${path} requestBody`, new Set());
  return found;
}

describe("e-mail members", () => {
  it("there are the four the document names (EDD, fraud analytics, biometric email and notifications)", () => {
    expect(new Set(requestEmailMembers().map(([, n]) => n)).size).toBe(4);
  });

  it.each(requestEmailMembers())("%s marks its narrower rule with an x-gap", (_, member) => {
    const choices = gapsOf(member).map((g) => String(g.choice));
    expect(choices.some((c) => c.includes("0@com") && c.includes("x@[127.0.0.1]") && c.includes("422"))).toBe(
      true,
    );
  });

  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startMock({ port: 0 });
  });
  afterAll(async () => {
    await mock?.close();
  });

  it.each(["0@com", "a@localhost", "x@[127.0.0.1]"])(
    "the mock refuses %s with 422, as the x-gap says",
    async (email) => {
      const path = "/api/v4/fraud_analytics";
      const body = structuredClone(deref(doc, doc.components.examples.CreateFraudAnalyticRequest).value);
      body.email = email;
      const res = await fetch(`${mock.url}${path}`, {
        method: "POST",
        headers: { ...credentialsFor(path), "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(422);
    },
  );
});

it("the export's x-gap and its exportAgain link say the same answer to a second export", () => {
  const op = doc.paths["/api/v2/manual_eidv/{transaction_id}/export_and_archive"].put;
  const quote = "Export of a verification already archived; data erased.";
  const opGap = gapsOf(op).find((g) => g.quote === quote);
  const linkGap = gapsOf(op.responses["200"].links.exportAgain).find((g) => g.quote === quote);
  expect(opGap?.choice).not.toMatch(/unknown/);
  for (const gap of [opGap, linkGap]) expect(gap?.choice).toContain("404 NOT_FOUND in shape A");
  expect(op.responses["404"]).toBeDefined();
});
