import { describe, expect, it } from "vitest";
import { ApiRequestError, apiError, classifyError, createClient, unwrap } from "../../src/index.js";
import { BASE, recordingFetch } from "./recorder.js";

const shapeA = {
  metadata: { reference: "r", timestamp: "2026-11-22T09:30:02Z", api_version: "v2", request_id: "q-1" },
  message: "Invalid credentials.",
  error_type: "AUTHENTICATION",
};
const shapeB = { error_code: "NOT_CREATED", message: "Postcode is invalid." };

describe("error shapes", () => {
  it.each([
    [
      "shape A",
      401,
      shapeA,
      { shape: "A", status: 401, code: "AUTHENTICATION", message: "Invalid credentials." },
    ],
    [
      "shape B",
      422,
      shapeB,
      { shape: "B", status: 422, code: "NOT_CREATED", message: "Postcode is invalid." },
    ],
    ["an HTML page", 502, "<html>Bad gateway</html>", { shape: "unknown", status: 502, code: undefined }],
    ["a body without message", 500, { error_code: "X" }, { shape: "unknown", status: 500, code: undefined }],
    ["no body", 503, undefined, { shape: "unknown", status: 503, message: "HTTP 503" }],
  ])("classifies %s", (_name, status, body, want) => {
    expect(classifyError(status, body)).toMatchObject({ ...want, body });
  });

  it("classifies the typed error of a v2 manual verification call as shape A", async () => {
    const { fetch } = recordingFetch(() => Response.json(shapeA, { status: 401 }));
    const result = await createClient({ ...BASE, fetch }).POST("/api/v2/manual_eidv", {
      body: {
        metadata: { reference: "r" },
        individual: { first_name: "A", last_name: "B", date_of_birth: "1990-03-02" },
        address: { line_1: "1 High St", postcode: "AB1 2CD", country: "GBR", city: "London" },
      },
    });
    const error = apiError(result);
    expect(error?.shape).toBe("A");
    if (error?.shape === "A") expect(error.body.metadata.request_id).toBe("q-1");
  });

  it("is undefined for a success, and unwrap returns its data", async () => {
    const { fetch } = recordingFetch(() => Response.json({ id: 9 }));
    const result = await createClient({ ...BASE, fetch }).GET("/api/v4/outsource_cases/{id}", {
      params: { path: { id: 9 } },
    });
    expect(apiError(result)).toBeUndefined();
    expect(unwrap(result)).toEqual({ id: 9 });
  });

  it("unwrap throws an ApiRequestError carrying the status and the classified error", async () => {
    const { fetch } = recordingFetch(() => Response.json(shapeB, { status: 422 }));
    const result = await createClient({ ...BASE, fetch }).POST("/api/v4/fraud_analytics", {
      body: { reference: "r", email: "a@example.com", contact_phone: "64211234567" },
    });
    expect(() => unwrap(result)).toThrow(ApiRequestError);
    try {
      unwrap(result);
    } catch (e) {
      expect((e as ApiRequestError).status).toBe(422);
      expect((e as ApiRequestError).error).toMatchObject({ shape: "B", code: "NOT_CREATED" });
      // The service's message may quote the request (personal data): only `error` carries it; the
      // code is quoted as the contract names it.
      expect((e as Error).message).toBe("POST /api/v4/fraud_analytics failed with HTTP 422 NOT_CREATED");
    }
    expect(() => unwrap(result, "fraud check")).toThrow(/^fraud check failed with HTTP 422 NOT_CREATED$/);
  });
});
