// No personal data and no credential reaches a report, whatever the format: identity data is fed
// through every check that can fire, and none of it may appear in the text, JSON or JUnit report.
import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import type { Exchange } from "../../conformance/traffic/exchange.js";
import { runCli, tempDir, writeNdjson } from "./support/cli.js";
import { bodyJson, example, jsonText } from "./support/exchanges.js";

const IDENTITY = {
  firstName: "Aroha",
  middleName: "Mereana",
  lastName: "Ngata-Whitcombe",
  dateOfBirth: "1987-04-23",
  dateOfBirthDmy: "23/04/1987",
  passport: "LM493817",
  licence: "DK774201",
  licenceVersion: "0397",
  street: "17 Karaka Street",
  suburb: "Grey Lynn",
  postcode: "0931",
  phone: "64211234567",
  phoneIntl: "+64 21 123 4567",
  email: "aroha.ngata@example.org",
  ip: "203.0.113.77",
  apiKey: "svc-key-9f8e7d6c5b4a",
  secret: "svc-secret-Zq9Xw8Vu7Ts6",
  signature: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4",
  authorization: "Bearer eyJhbGciOiJIUzI1NiJ9.cGF5bG9hZA.c2lnbmF0dXJl",
  fileName: "aroha-ngata-passport.pdf",
};

/** Exchanges carrying the identity in every place a check looks at, most of them breaking a rule. */
function exchanges(): Exchange[] {
  const out: Exchange[] = [];
  const credentials = (x: Exchange) => {
    for (const name of Object.keys(x.request.headers)) {
      if (name === "svc-api-key") x.request.headers[name] = IDENTITY.apiKey;
      if (name === "svc-secret") x.request.headers[name] = IDENTITY.secret;
      if (name === "svc-signature") x.request.headers[name] = IDENTITY.signature;
    }
    x.request.headers.authorization = IDENTITY.authorization;
    return x;
  };

  // Request body: invalid formats, lengths, enums, unknown members keyed by personal data.
  const manual = credentials(example("createManualVerification"));
  const body = bodyJson(manual.request.body);
  body.individual = {
    first_name: `${IDENTITY.firstName}${"a".repeat(70)}`,
    middle_name: IDENTITY.middleName,
    last_name: IDENTITY.lastName,
    date_of_birth: IDENTITY.dateOfBirthDmy,
    sex: IDENTITY.firstName,
    [IDENTITY.email]: IDENTITY.phone,
  };
  body.identity_document = {
    type: IDENTITY.licence,
    country_of_issue: "NZ",
    primary_number: 493817,
    secondary_number: IDENTITY.licenceVersion,
  };
  body.address = {
    line_1: IDENTITY.street,
    suburb: IDENTITY.suburb,
    postcode: IDENTITY.postcode,
    country: IDENTITY.street,
  };
  manual.request.body = jsonText(body);
  // Response: undescribed members and wrong types holding personal data.
  const response = bodyJson(manual.response?.body);
  response.metadata.reference = 42;
  response.customer_email = IDENTITY.email;
  response[IDENTITY.phoneIntl] = { ip: IDENTITY.ip };
  if (manual.response) manual.response.body = jsonText(response);
  out.push(manual);

  // Fraud analytics: e-mail, phone and IP in the request, with format violations.
  const fraud = credentials(example("createFraudAnalytic"));
  fraud.request.body = jsonText({
    reference: 7,
    email: IDENTITY.email.replace("@", " at "),
    contact_phone: IDENTITY.phoneIntl,
    ip_address: IDENTITY.ip,
    firstname: IDENTITY.firstName,
    extra_ip: IDENTITY.ip,
  });
  out.push(fraud);

  // Personal data in the path, the query string, a missing credential and an error body of the wrong shape.
  const unknown = credentials(example("getEddCase"));
  unknown.request.path = `/api/v4/people/${encodeURIComponent(IDENTITY.email)}/${IDENTITY.phone}`;
  unknown.request.query = { dob: [IDENTITY.dateOfBirth] };
  out.push(unknown);
  const wrongError = credentials(example("createPepCheck", 422));
  delete wrongError.request.headers["svc-date"];
  if (wrongError.response) {
    wrongError.response.status = 409;
    wrongError.response.body = jsonText({
      error: `${IDENTITY.firstName} ${IDENTITY.lastName} born ${IDENTITY.dateOfBirth} exists`,
      code: IDENTITY.passport,
    });
  }
  out.push(wrongError);

  // A PDF whose file name is personal, with a header that breaks its pattern and a body that is not a PDF.
  const pdf = credentials(example("getManualPepWatchlist"));
  if (pdf.response) {
    pdf.response.headers["content-disposition"] = `inline; name=${IDENTITY.fileName}`;
    pdf.response.body = {
      kind: "text",
      text: `${IDENTITY.firstName} ${IDENTITY.lastName} ${IDENTITY.passport}`,
    };
  }
  out.push(pdf);

  // A multipart upload whose file name and type are wrong.
  const upload = credentials(example("uploadEddCaseFile"));
  const boundary = "----redaction-boundary";
  upload.request.headers["content-type"] = `multipart/form-data; boundary=${boundary}`;
  upload.request.body = {
    kind: "text",
    text: [
      `--${boundary}`,
      `Content-Disposition: form-data; name="file"; filename="${IDENTITY.fileName}.exe"`,
      "Content-Type: application/x-msdownload",
      "",
      `${IDENTITY.firstName} ${IDENTITY.passport}`,
      `--${boundary}`,
      `Content-Disposition: form-data; name="${IDENTITY.email}"`,
      "",
      IDENTITY.phone,
      `--${boundary}--`,
      "",
    ].join("\r\n"),
  };
  out.push(upload);
  // A path parameter that is personal data.
  const param = credentials(example("getPepCheckPdf"));
  param.request.path = `/api/v4/pdf/pep_checks/${IDENTITY.phone}`;
  out.push(param);
  return out;
}

describe("redaction", () => {
  const dir = tempDir();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = writeNdjson(dir, "identity.ndjson", exchanges());
  const needles = Object.entries(IDENTITY).flatMap(([name, value]) => [
    [name, value],
    [`${name} (JSON-escaped)`, JSON.stringify(value).slice(1, -1)],
    [`${name} (URL-encoded)`, encodeURIComponent(value)],
  ]);

  it.each(["text", "json", "junit"])(
    "the %s report says where and why, and shows none of the identity",
    (format) => {
      const run = runCli(["check", file, "--format", format, "--warnings-as-errors"]);
      expect(run.status).toBe(1);
      const output = run.stdout + run.stderr;
      // The report is not empty: it names the places the data sat in.
      for (const where of [
        "/individual/first_name",
        "/individual/date_of_birth",
        "/address/country",
        "/error_code",
        "/Content-Disposition",
        "/Svc-Date",
      ]) {
        expect(output).toContain(where);
      }
      expect(output).toContain("[redacted]");
      const leaked = needles.filter(([, value]) => value && output.includes(value)).map(([name]) => name);
      expect(leaked).toEqual([]);
    },
  );
});
