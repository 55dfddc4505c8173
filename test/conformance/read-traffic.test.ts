// Reading HAR 1.2 entries and NDJSON lines into exchanges.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { exchangeFromHar, exchangeFromNdjson } from "../../conformance/traffic/read-traffic.js";
import { checker, example } from "./support/exchanges.js";

describe("exchangeFromHar", () => {
  it("reads headers, query, postData params and base64 content", () => {
    const x = exchangeFromHar(
      {
        request: {
          method: "post",
          url: "https://idv.example.com/api/v4/outsource_cases/1042/upload?trace=1",
          headers: [
            { name: "Svc-API-Key", value: "k" },
            { name: "Accept", value: "a" },
            { name: "accept", value: "b" },
          ],
          queryString: [{ name: "extra", value: "2" }],
          postData: {
            mimeType: "multipart/form-data",
            params: [{ name: "file", fileName: "deed.pdf", contentType: "application/pdf", value: "%PDF-1" }],
          },
        },
        response: {
          status: 200,
          headers: [],
          content: {
            size: 4,
            mimeType: "application/pdf",
            text: Buffer.from("%PDF").toString("base64"),
            encoding: "base64",
          },
        },
      },
      3,
    );
    expect(x.index).toBe(3);
    expect(x.request.path).toBe("/api/v4/outsource_cases/1042/upload");
    expect(x.request.query).toEqual({ trace: ["1"], extra: ["2"] });
    expect(x.request.headers).toEqual({
      "svc-api-key": "k",
      accept: "a, b",
      "content-type": "multipart/form-data",
    });
    expect(x.request.body).toEqual({
      kind: "form",
      parts: [{ name: "file", fileName: "deed.pdf", contentType: "application/pdf", size: 6 }],
    });
    expect(x.response?.body).toEqual({ kind: "bytes", bytes: Buffer.from("%PDF") });
  });

  it("marks a body the recorder did not keep, and the check warns instead of failing", () => {
    const base = example("getEddCase");
    const har = {
      request: {
        method: "GET",
        url: `http://127.0.0.1:4010${base.request.path}`,
        headers: Object.entries(base.request.headers).map(([name, value]) => ({ name, value })),
      },
      response: {
        status: 200,
        headers: [{ name: "Content-Type", value: "application/json" }],
        content: { size: 2048, mimeType: "application/json" },
      },
    };
    const x = exchangeFromHar(har, 0);
    expect(x.response?.bodyNotRecorded).toBe(true);
    const result = checker.checkExchange(x);
    expect(result.ok).toBe(true);
    expect(result.warnings).toEqual([
      {
        in: "response.body",
        check: "response_body_schema",
        pointer: "",
        message: "the recorder did not keep the body; it was not checked",
      },
    ]);
  });
});

describe("exchangeFromNdjson", () => {
  it("reads a path with a separate query, HAR-style headers and a JSON body given as a value", () => {
    const x = exchangeFromNdjson(
      {
        request: {
          method: "PATCH",
          path: "/api/v4/outsource_cases/7/status",
          query: { a: "1" },
          headers: [{ name: "Content-Type", value: "application/json" }],
          body: { process_status: "completed" },
        },
        response: { status: 200, headers: { "Content-Type": "application/json" }, body: "{}" },
      },
      0,
      1,
    );
    expect(x.request.query).toEqual({ a: ["1"] });
    expect(x.request.headers).toEqual({ "content-type": "application/json" });
    expect(x.request.body).toEqual({ kind: "json", value: { process_status: "completed" } });
    expect(x.response?.body).toEqual({ kind: "text", text: "{}" });
  });

  it.each([
    [{}, "has no request object"],
    [{ request: { url: "/x" } }, "request.method is missing"],
    [{ request: { method: "GET" } }, "request has neither url nor path"],
    [
      { request: { method: "GET", url: "/x", headers: 5 } },
      "request.headers must be an object or an array of {name, value}",
    ],
    [
      { request: { method: "GET", url: "/x" }, response: { status: "teapot" } },
      "response.status is not an HTTP status",
    ],
  ])("rejects %j: %s", (raw, message) => {
    expect(() => exchangeFromNdjson(raw, 0, 1)).toThrow(message);
  });
});

describe("HAR entries as browsers write them", () => {
  const request = { method: "GET", url: "http://127.0.0.1:4010/api/v4/outsource_cases/1" };

  it.each([-1, 0, "-1", "0"])(
    "marks a request with status %j as one the browser saw no answer to",
    (status) => {
      const x = exchangeFromHar({ request, response: { status, headers: [], content: { size: -1 } } }, 2);
      expect(x.unjudged).toEqual({ reason: "no-answer", status: Number(status) });
      expect(x.response).toBeUndefined();
      expect(x.request.path).toBe("/api/v4/outsource_cases/1");
    },
  );

  it.each([-2, 1000, 1.5, "x", null])("still refuses status %j", (status) => {
    expect(() => exchangeFromHar({ request, response: { status } }, 0)).toThrow(
      "response.status is not an HTTP status",
    );
  });

  it.each([
    [{ size: -1, mimeType: "application/json" }, true],
    [{ size: 1200, mimeType: "application/json", comment: "Response bodies are not included." }, true],
    [{ mimeType: "application/json", comment: "Response bodies are not included." }, true],
    [{ size: 0, mimeType: "application/json", comment: "Response bodies are not included." }, false],
    [{ size: 0, mimeType: "x-unknown" }, false],
    [{ mimeType: "application/json" }, false],
  ])("content %j: body not recorded is %s", (content, notRecorded) => {
    const x = exchangeFromHar({ request, response: { status: 200, headers: [], content } }, 0);
    expect(x.response?.body).toBeUndefined();
    expect(x.response?.bodyNotRecorded).toBe(notRecorded);
  });

  it("takes the request's Content-Type, not the part headers Firefox appends after it", () => {
    const text =
      '--b1\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\nx\r\n--b1--\r\n';
    const headers = [
      { name: "Content-Type", value: "multipart/form-data; boundary=b1" },
      { name: "Content-Disposition", value: 'form-data; name="file"; filename="a.png"' },
      { name: "Content-Type", value: "image/png" },
    ];
    const x = exchangeFromHar({ request: { ...request, method: "POST", headers, postData: { text } } }, 0);
    expect(x.request.headers["content-type"]).toBe("multipart/form-data; boundary=b1");
    // Without a multipart body they delimit, several Content-Types stay as recorded (and are judged so).
    const plain = exchangeFromHar(
      { request: { ...request, method: "POST", headers, postData: { text: "{}" } } },
      0,
    );
    expect(plain.request.headers["content-type"]).toBe("multipart/form-data; boundary=b1, image/png");
  });

  it("finds the request's multipart Content-Type wherever other Content-Types stand (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string(), { maxLength: 4 }),
        fc.array(fc.string(), { maxLength: 4 }),
        fc.stringMatching(/^[A-Za-z0-9'()+_,./:=?-]{1,40}$/),
        (before, after, boundary) => {
          const own = `multipart/form-data; boundary=${boundary}`;
          const others = (values: string[]) =>
            values
              .filter((v) => !v.includes(`boundary=${boundary}`))
              .map((value) => ({ name: "content-type", value }));
          const headers = [...others(before), { name: "Content-Type", value: own }, ...others(after)];
          const x = exchangeFromHar(
            {
              request: {
                ...request,
                method: "POST",
                headers,
                postData: { text: `--${boundary}\r\n\r\n--${boundary}--` },
              },
            },
            0,
          );
          const first = headers.find((h) => {
            const b = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(h.value);
            return b && `--${boundary}\r\n`.includes(`--${b[1] ?? b[2]}`);
          });
          if (headers.length > 1) expect(x.request.headers["content-type"]).toBe(first?.value);
          else expect(x.request.headers["content-type"]).toBe(own);
        },
      ),
      { numRuns: 200, seed: 21 },
    );
  });
});

describe("a request body sent but not recorded", () => {
  const upload = { method: "POST", url: "http://127.0.0.1:4010/api/v4/outsource_cases/1/upload" };
  const header = (name: string, value: string) => [{ name, value }];

  it.each([
    ["bodySize", { bodySize: 187 }, true],
    ["Content-Length", { headers: header("Content-Length", "187") }, true],
    ["chunked framing", { headers: header("Transfer-Encoding", "chunked") }, true],
    [
      "Firefox's comment",
      { postData: { mimeType: "", params: [], text: "", comment: "Request bodies are not included." } },
      true,
    ],
    ["nothing says so", { bodySize: 0, headers: header("Content-Length", "0") }, false],
    [
      "a recorded body",
      { bodySize: 2, headers: header("Content-Length", "2"), postData: { text: "{}" } },
      false,
    ],
  ])("%s: %s", (_name, fields, notRecorded) => {
    const x = exchangeFromHar({ request: { ...upload, ...fields } }, 0);
    expect(x.request.bodyNotRecorded === true).toBe(notRecorded);
  });

  it("is a warning, not a missing required body", () => {
    const base = example("uploadEddCaseFile");
    const x = exchangeFromHar(
      {
        request: {
          method: "POST",
          url: `http://127.0.0.1:4010${base.request.path}`,
          headers: Object.entries(base.request.headers).map(([name, value]) => ({ name, value })),
          bodySize: 0,
        },
        response: {
          status: 200,
          headers: [{ name: "Content-Type", value: "application/json" }],
          content: { size: -1 },
        },
      },
      0,
    );
    expect(checker.checkExchange(x).violations).toEqual([
      {
        in: "request.body",
        check: "request_body_schema",
        pointer: "",
        message: "the request body is required, but none was sent",
      },
    ]);
    const sent = exchangeFromHar(
      {
        request: {
          method: "POST",
          url: `http://127.0.0.1:4010${base.request.path}`,
          headers: Object.entries({ ...base.request.headers, "content-length": "187" }).map(
            ([name, value]) => ({ name, value }),
          ),
        },
        response: {
          status: 200,
          headers: [{ name: "Content-Type", value: "application/json" }],
          content: { size: -1 },
        },
      },
      0,
    );
    const result = checker.checkExchange(sent);
    expect(result.ok).toBe(true);
    expect(result.warnings.map((w) => `${w.in} ${w.message}`)).toEqual([
      "request.body the recorder did not keep the body; it was not checked",
      "response.body the recorder did not keep the body; it was not checked",
    ]);
  });
});
