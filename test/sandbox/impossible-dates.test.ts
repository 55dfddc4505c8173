// A date no calendar has (31 April, 29 February of a common year) is refused wherever the contract
// takes a date, by the mock and the sandbox alike, with the operation's 422 in its shape: before,
// `31/04/1985` was answered 200 with "1985-04-31", breaking the response's own `format: date`.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningMock } from "../../mock/server.js";
import { startMock } from "../../mock/server.js";
import { deref, type Json, loadOpenApi } from "../support/contract.js";
import { credentialsFor } from "../support/mock.js";
import { startTestSandbox } from "../support/sandbox.js";

const doc = loadOpenApi();
const example = (name: string): Json => structuredClone(deref(doc, doc.components.examples[name]).value);

/** Each date-taking member of a request: its operation, a valid body, and how to set the date. */
const MEMBERS: { name: string; path: string; body: () => Json; set: (b: Json, v: string) => void }[] = [
  {
    name: "PEP check date_of_birth (DD/MM/YYYY)",
    path: "/api/v4/pep_checks",
    body: () => example("CreatePepCheckRequest"),
    set: (b, v) => void (b.date_of_birth = v),
  },
  {
    name: "manual verification individual.date_of_birth (format: date)",
    path: "/api/v2/manual_eidv",
    body: () => example("CreateManualVerificationAusRequest"),
    set: (b, v) => void (b.individual.date_of_birth = v),
  },
  {
    name: "manual verification identity_document.date_of_expiry (format: date)",
    path: "/api/v2/manual_eidv",
    body: () => example("CreateManualVerificationAusRequest"),
    set: (b, v) => void (b.identity_document.date_of_expiry = v),
  },
  {
    name: "EDD case deadline (format: date-time)",
    path: "/api/v4/outsource_cases",
    body: () => example("CreateEddCaseAusRequest"),
    set: (b, v) => void (b.deadline = v),
  },
];

/** Impossible and possible dates in each member's own notation. */
function datesFor(name: string): { impossible: string[]; possible: string[] } {
  if (name.includes("DD/MM/YYYY"))
    return {
      impossible: ["31/04/1985", "29/02/2001", "30/02/2000", "31/06/1990", "29/02/1900", "31/11/2020"],
      possible: ["29/02/2000", "29/02/2004", "31/12/1999", "30/04/1985", "29/02/1600"],
    };
  if (name.includes("date-time"))
    return {
      impossible: ["2027-02-29T17:00:00+11:00", "2026-04-31T09:00:00Z"],
      possible: ["2028-02-29T17:00:00+11:00"],
    };
  return { impossible: ["2001-02-29", "1985-04-31"], possible: ["2000-02-29", "1985-04-30"] };
}

type Send = (path: string, body: Json) => Promise<{ status: number; body: Json }>;

let mock: RunningMock;
let sbx: Awaited<ReturnType<typeof startTestSandbox>>;
beforeAll(async () => {
  mock = await startMock({ port: 0 });
  sbx = await startTestSandbox();
});
afterAll(async () => {
  await mock?.close();
  await sbx?.running.close();
});

const toMock: Send = async (path, body) => {
  const res = await fetch(`${mock.url}${path}`, {
    method: "POST",
    headers: { ...credentialsFor(path), "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
};
const toSandbox: Send = async (path, body) => {
  const { response, data, error } = await sbx.client.POST(path as "/api/v4/pep_checks", { body });
  return { status: response.status, body: (error ?? data) as Json };
};

/** The error code of either error shape (A: `{ error_type }`, B: `{ error_code }`). */
const codeOf = (body: Json): unknown => body?.error_code ?? body?.error_type;

describe.each([
  ["the mock", () => toMock],
  ["the sandbox", () => toSandbox],
])("%s", (_, sender) => {
  it.each(MEMBERS)("refuses an impossible $name with 422", async (member) => {
    for (const date of datesFor(member.name).impossible) {
      const body = member.body();
      member.set(body, date);
      const answer = await sender()(member.path, body);
      expect({ date, status: answer.status }).toEqual({ date, status: 422 });
      expect(codeOf(answer.body)).toBeTypeOf("string");
      expect(JSON.stringify(answer.body)).not.toContain(date);
    }
  });

  it.each(MEMBERS)("accepts a possible $name (leap days of leap years too)", async (member) => {
    for (const date of datesFor(member.name).possible) {
      const body = member.body();
      member.set(body, date);
      const answer = await sender()(member.path, body);
      expect({ date, status: answer.status }).toEqual({ date, status: 200 });
    }
  });
});

it("the sandbox answers a possible DD/MM/YYYY date of birth as the same ISO date", async () => {
  const body = example("CreatePepCheckRequest");
  body.date_of_birth = "29/02/2000";
  const { data } = await sbx.client.POST("/api/v4/pep_checks", { body: body as never });
  expect(data?.date_of_birth).toBe("2000-02-29");
});

it("the contract's DD/MM/YYYY pattern takes exactly the days the calendar has", () => {
  const pattern = new RegExp(
    deref(doc, doc.components.schemas.PepCheckRequest).properties.date_of_birth.pattern as string,
    "u",
  );
  const two = (n: number) => String(n).padStart(2, "0");
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 9999 }),
      fc.integer({ min: 0, max: 13 }),
      fc.integer({ min: 0, max: 32 }),
      (y, m, d) => {
        const day = new Date(Date.UTC(2000, 0, 1));
        day.setUTCFullYear(y, m - 1, d);
        const real = day.getUTCFullYear() === y && day.getUTCMonth() === m - 1 && day.getUTCDate() === d;
        expect(pattern.test(`${two(d)}/${two(m)}/${String(y).padStart(4, "0")}`)).toBe(real);
      },
    ),
    { numRuns: 5000 },
  );
  for (const leap of ["29/02/2000", "29/02/1600", "29/02/0000", "29/02/2024"])
    expect(pattern.test(leap)).toBe(true);
  for (const common of ["29/02/1900", "29/02/2100", "29/02/2023", "31/04/1985"])
    expect(pattern.test(common)).toBe(false);
});
