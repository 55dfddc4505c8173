// Every check, on an exchange that passes it and on one that breaks it, with the violation expected.
import { describe, expect, it } from "vitest";
import type { Exchange } from "../../conformance/traffic/exchange.js";
import type { CheckName, FindingLocation } from "../../conformance/findings/findings.js";
import { bodyJson, checker, example, jsonText } from "./support/exchanges.js";

interface Case {
  check: CheckName;
  /** A valid exchange that exercises the check. */
  pass: () => Exchange;
  /** The same exchange, broken. */
  fail: (x: Exchange) => void;
  want: { in: FindingLocation; pointer: string; message: RegExp };
}

const cases: [string, Case][] = [
  [
    "route_known: unknown path",
    {
      check: "route_known",
      pass: () => example("createPepCheck"),
      fail: (x) => {
        x.request.path = "/api/v4/pep_check";
      },
      want: { in: "request.route", pointer: "", message: /no path of the contract matches/ },
    },
  ],
  [
    "route_known: undocumented method",
    {
      check: "route_known",
      pass: () => example("getEddCase"),
      fail: (x) => {
        x.request.method = "DELETE";
      },
      want: { in: "request.route", pointer: "", message: /no DELETE operation.*documented: GET/ },
    },
  ],
  [
    "request_content_type",
    {
      check: "request_content_type",
      pass: () => example("createFraudAnalytic"),
      fail: (x) => {
        x.request.headers["content-type"] = "application/x-www-form-urlencoded";
      },
      want: {
        in: "request.header",
        pointer: "/Content-Type",
        message: /application\/x-www-form-urlencoded is not one/,
      },
    },
  ],
  [
    "request_body_schema: member the closed request does not describe",
    {
      check: "request_body_schema",
      pass: () => example("createPepCheck"),
      fail: (x) => {
        x.request.body = jsonText({ ...bodyJson(x.request.body), nickname: "x" });
      },
      // The undescribed member's name is recorded data: the pointer names its place, not its name.
      want: { in: "request.body", pointer: "/[redacted]", message: /not described/ },
    },
  ],
  [
    "request_body_schema: required member missing",
    {
      check: "request_body_schema",
      pass: () => example("createManualVerification"),
      fail: (x) => {
        const body = bodyJson(x.request.body);
        delete body.individual.last_name;
        x.request.body = jsonText(body);
      },
      want: { in: "request.body", pointer: "/individual/last_name", message: /required member "last_name"/ },
    },
  ],
  [
    "request_body_schema: multipart file of a refused type",
    {
      check: "request_body_schema",
      pass: () => example("uploadEddCaseFile"),
      fail: (x) => {
        x.request.body = {
          kind: "form",
          parts: [{ name: "file", fileName: "deed.exe", contentType: "application/x-msdownload", size: 10 }],
        };
      },
      want: {
        in: "request.body",
        pointer: "/file",
        // A media type neither the contract nor common traffic names is not repeated.
        message: /media type \(an unlisted media type\) is not accepted/,
      },
    },
  ],
  [
    "request_parameters",
    {
      check: "request_parameters",
      pass: () => example("getPepCheckPdf"),
      fail: (x) => {
        x.request.path = "/api/v4/pdf/pep_checks/0";
      },
      want: { in: "request.parameter", pointer: "/path/id", message: /must be >= 1/ },
    },
  ],
  [
    "auth_headers_present: v2",
    {
      check: "auth_headers_present",
      pass: () => example("createBiometricVerification"),
      fail: (x) => {
        delete x.request.headers["svc-secret"];
      },
      want: { in: "request.header", pointer: "/Svc-Secret", message: /Svc-Secret header/ },
    },
  ],
  [
    "auth_headers_present: v4",
    {
      check: "auth_headers_present",
      pass: () => example("createKybVerification"),
      fail: (x) => {
        x.request.headers["svc-signature"] = "";
      },
      want: { in: "request.header", pointer: "/Svc-Signature", message: /missing or empty/ },
    },
  ],
  [
    "status_code_documented",
    {
      check: "status_code_documented",
      pass: () => example("getEddCase"),
      fail: (x) => {
        if (x.response) x.response.status = 201;
      },
      want: {
        in: "response.status",
        pointer: "",
        message: /status 201 is not documented.*200, 400, 401, 403, 404/,
      },
    },
  ],
  [
    "response_content_type",
    {
      check: "response_content_type",
      pass: () => example("searchProperty"),
      fail: (x) => {
        if (x.response) x.response.headers["content-type"] = "text/html";
      },
      want: {
        in: "response.header",
        pointer: "/Content-Type",
        message: /text\/html is not one the contract gives \(application\/json\)/,
      },
    },
  ],
  [
    "response_body_schema: JSON",
    {
      check: "response_body_schema",
      pass: () => example("createPepCheck"),
      fail: (x) => {
        if (x.response)
          x.response.body = jsonText({ ...bodyJson(x.response.body), is_pep_watchlist_clear: "yes" });
      },
      want: {
        in: "response.body",
        pointer: "/is_pep_watchlist_clear",
        message: /must be boolean \(is string\)/,
      },
    },
  ],
  [
    "response_body_schema: a PDF body by its signature",
    {
      check: "response_body_schema",
      pass: () => example("getBiometricPdf"),
      fail: (x) => {
        if (x.response) x.response.body = { kind: "text", text: "<html>not found</html>" };
      },
      want: {
        in: "response.body",
        pointer: "",
        message: /not application\/pdf: it does not start with "%PDF-"/,
      },
    },
  ],
  [
    "response_body_schema: a zip body by its signature",
    {
      check: "response_body_schema",
      pass: () => example("getTitleSearchDocument", 200, "application/zip"),
      fail: (x) => {
        if (x.response) x.response.body = { kind: "bytes", bytes: Buffer.from("%PDF-1.4") };
      },
      want: { in: "response.body", pointer: "", message: /not application\/zip: it does not start with "PK/ },
    },
  ],
  [
    "response_headers",
    {
      check: "response_headers",
      pass: () => example("getKybVerificationPdf"),
      fail: (x) => {
        if (x.response) x.response.headers["content-disposition"] = "attachment";
      },
      want: { in: "response.header", pointer: "/Content-Disposition", message: /must match the pattern/ },
    },
  ],
  [
    "error_shape: shape A on manual verification",
    {
      check: "error_shape",
      pass: () => example("createManualVerification", 422),
      fail: (x) => {
        if (x.response) x.response.body = jsonText({ error_code: "VALIDATION_FAILED", message: "invalid" });
      },
      want: {
        in: "response.body",
        pointer: "/error_type",
        message: /not a ManualVerificationError: required member "error_type"/,
      },
    },
  ],
  [
    "error_shape: shape B elsewhere, even on an undocumented status",
    {
      check: "error_shape",
      pass: () => example("createEddCase", 422),
      fail: (x) => {
        if (x.response) {
          x.response.status = 409;
          x.response.body = jsonText({ error: "conflict" });
        }
      },
      want: {
        in: "response.body",
        pointer: "/error_code",
        message: /not a ServiceError: required member "error_code"/,
      },
    },
  ],
];

describe("checks", () => {
  it.each(cases)("%s", (_, c) => {
    const good = c.pass();
    const passed = checker.checkExchange(good);
    expect(passed.violations).toEqual([]);
    expect(passed.ok).toBe(true);

    c.fail(good);
    const failed = checker.checkExchange(good);
    expect(failed.ok).toBe(false);
    expect(failed.violations).toContainEqual({
      check: c.check,
      in: c.want.in,
      pointer: c.want.pointer,
      message: expect.stringMatching(c.want.message),
    });
  });

  it("reports members a response has but the contract does not describe as warnings, not violations", () => {
    const x = example("createManualVerification");
    const body = bodyJson(x.response?.body);
    body.results.face_score = 0.93;
    body.service_extra = { nested: true };
    if (x.response) x.response.body = jsonText(body);
    const result = checker.checkExchange(x);
    expect(result.ok).toBe(true);
    // Undescribed names are recorded data: each warning points at the member's place, never its name.
    expect(result.warnings.map((w) => w.pointer).sort()).toEqual(["/[redacted]", "/results/[redacted]"]);
    expect(result.warnings.every((w) => w.check === "response_body_schema" && w.in === "response.body")).toBe(
      true,
    );
  });

  it("does not warn about members described through allOf, oneOf and $ref", () => {
    const x = example("createManualVerification", 422);
    const result = checker.checkExchange(x);
    expect(result.warnings).toEqual([]);
    expect(bodyJson(x.response?.body).metadata).toBeTypeOf("object");
  });

  it("strips a base path given by the caller and names it when not given", () => {
    const x = example("getEddCase");
    x.request.path = `/idv${x.request.path}`;
    const unknown = checker.checkExchange(x);
    // The prefix is recorded, so it is described, not repeated.
    expect(unknown.violations[0]?.message).toMatch(
      /GET \/api\/v4\/outsource_cases\/\{id\} after a prefix of 1 segment \(\/\{…\}\): pass that prefix as --base-path/,
    );
    expect(unknown.path).toBe("/{…}/api/v4/outsource_cases/{…}");
    const withBase = createConformanceCheckerWithBase("/idv").checkExchange(x);
    expect(withBase.ok).toBe(true);
    expect(withBase.operationId).toBe("getEddCase");
  });

  it("reports a body that is not JSON under application/json as a violation", () => {
    const x = example("createPepCheck");
    if (x.response) x.response.body = { kind: "text", text: "<html>Bad gateway</html>" };
    const result = checker.checkExchange(x);
    expect(result.violations).toContainEqual({
      in: "response.body",
      check: "response_body_schema",
      pointer: "",
      message: "the body is not valid JSON, although sent as application/json",
    });
  });

  it("reports a request body that is not JSON under application/json on the request side", () => {
    const x = example("createPepCheck");
    x.request.body = { kind: "text", text: "name=Jane" };
    expect(checker.checkExchange(x).violations).toEqual([
      {
        in: "request.body",
        check: "request_body_schema",
        pointer: "",
        message: "the body is not valid JSON, although sent as application/json",
      },
    ]);
  });

  it("reports an error body of the wrong shape once, under error_shape, not again under its schema", () => {
    const x = example("createManualVerification", 422);
    if (x.response) x.response.body = jsonText({ error_code: "VALIDATION_FAILED", message: "invalid" });
    const checks = checker.checkExchange(x).violations.map((v) => v.check);
    expect(checks).toContain("error_shape");
    expect(checks).not.toContain("response_body_schema");
  });

  it("reports a missing response", () => {
    const x = example("createPepCheck");
    x.response = undefined;
    expect(checker.checkExchange(x).violations).toEqual([
      {
        in: "response.status",
        check: "status_code_documented",
        pointer: "",
        message: "no response was recorded for this request",
      },
    ]);
  });
});

import { createConformanceChecker } from "../../conformance/index.js";

function createConformanceCheckerWithBase(base: string) {
  return createConformanceChecker({ basePaths: [base] });
}
