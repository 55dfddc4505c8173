// Reading HAR 1.2 entries and NDJSON lines into exchanges.
import { describe, expect, it } from "vitest";
import { exchangeFromHar, exchangeFromNdjson } from "../../conformance/read-traffic.js";
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
