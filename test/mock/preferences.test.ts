// What the mock says when a request asks for something the contract lacks (issue 13): an Accept
// header it cannot satisfy, a Prefer header naming an unknown status or example.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningMock } from "../../mock/server.js";
import { startTestMock, V4 } from "../support/mock.js";

let mock: RunningMock;
beforeAll(async () => {
  mock = await startTestMock();
});
afterAll(async () => {
  await mock?.close();
});

const get = async (path: string, headers: Record<string, string>) => {
  const res = await fetch(`${mock.url}${path}`, { headers: { ...V4, ...headers } });
  return { status: res.status, body: await res.json().catch(() => undefined) };
};

describe("Accept", () => {
  it("answers an Accept it cannot satisfy with 406 naming the media types, not a Prefer error", async () => {
    const res = await get("/api/v4/outsource_cases/1042", { accept: "application/xml" });
    expect(res).toEqual({
      status: 406,
      body: {
        error_code: "NOT_ACCEPTABLE",
        message: "The Accept header accepts none of this operation's media types: application/json.",
      },
    });
  });

  it("names the file type of a file operation", async () => {
    const pdf = await get("/api/v4/pdf/pep_checks/1042", { accept: "text/html" });
    expect(pdf.status).toBe(406);
    expect(pdf.body.message).toBe(
      "The Accept header accepts none of this operation's media types: application/pdf.",
    );
  });

  it("answers 406, not a Prefer error, when only the Accept is at fault and the Prefer is valid", async () => {
    for (const prefer of ["code=200", "code=200, example=with_assets", "code=404"]) {
      const res = await get("/api/v4/outsource_cases/1042", { accept: "application/xml", prefer });
      expect(res.status, prefer).toBe(406);
      expect(res.body.error_code, prefer).toBe("NOT_ACCEPTABLE");
    }
  });

  it("still answers wildcards and q-lists that include a documented type", async () => {
    expect((await get("/api/v4/outsource_cases/1042", { accept: "*/*" })).status).toBe(200);
    expect(
      (await get("/api/v4/outsource_cases/1042", { accept: "text/html, application/json;q=0.5" })).status,
    ).toBe(200);
  });
});

describe("Prefer", () => {
  it("lists the example names of the status when the example is unknown", async () => {
    const res = await get("/api/v4/outsource_cases/1042", { prefer: "example=nope" });
    expect(res).toEqual({
      status: 400,
      body: {
        error_code: "MOCK_PREFERENCE",
        message: "The mock has no answer for this Prefer header: the examples of status 200 are with_assets.",
      },
    });
  });

  it("lists the documented statuses when the code is not one", async () => {
    const res = await get("/api/v4/outsource_cases/1042", { prefer: "code=418" });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(
      "The mock has no answer for this Prefer header: code must be a documented status (200, 400, 401, 403, 404).",
    );
  });

  it("lists the examples of the asked status", async () => {
    const res = await get("/api/v4/outsource_cases/1042", { prefer: "code=404, example=nope" });
    expect(res.body.message).toBe(
      "The mock has no answer for this Prefer header: the examples of status 404 are NOT_FOUND.",
    );
    expect(
      (await get("/api/v4/outsource_cases/1042", { prefer: "code=404, example=NOT_FOUND" })).status,
    ).toBe(404);
  });

  it("answers 400 MOCK_PREFERENCE to any code that is not a documented status (-1, 20 digits, empty…)", async () => {
    const documented = new Set(["200", "400", "401", "403", "404"]);
    for (const code of ["-1", "12345678901234567890", "", "2OO", "+200", "200.0", "0200", " "]) {
      const res = await get("/api/v4/outsource_cases/1042", { prefer: `code=${code}` });
      expect(res.status, code).toBe(400);
      expect(res.body.error_code, code).toBe("MOCK_PREFERENCE");
    }
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.integer({ min: -1e6, max: 1e6 }).map(String),
          fc.bigInt({ min: 10n ** 15n, max: 10n ** 25n }).map(String),
          fc.stringMatching(/^[0-9a-z+.-]{0,24}$/),
        ),
        async (code) => {
          const res = await get("/api/v4/outsource_cases/1042", { prefer: `code=${code}` });
          if (documented.has(code)) expect(res.status, code).toBe(Number(code));
          else expect([res.status, res.body?.error_code], code).toEqual([400, "MOCK_PREFERENCE"]);
        },
      ),
      { numRuns: 60 },
    );
  });
});
