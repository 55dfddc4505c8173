// idv-contract/msw from the sources: setupServer(...sandboxHandlers(sandbox, { baseUrl })) answers a
// base URL's requests (and the sandbox's own url, which its answers name) from an in-process sandbox,
// and leaves every other origin to MSW's unhandled-request rule.
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox, type InProcessSandbox } from "../../sandbox/index.js";
import { sandboxHandlers } from "../../src/msw/index.js";
import { createClient } from "../../src/index.js";

const baseUrl = "https://idv.example.test";
let sandbox: InProcessSandbox;
let server: ReturnType<typeof setupServer>;
beforeAll(async () => {
  sandbox = await createSandbox();
  server = setupServer(...sandboxHandlers(sandbox, { baseUrl }));
  server.listen({ onUnhandledRequest: "error" });
});
afterAll(async () => {
  server?.close();
  await sandbox?.close();
});

describe("sandboxHandlers", () => {
  it("answers the base URL's requests from the sandbox, on the global fetch", async () => {
    const idv = createClient({ baseUrl, apiKey: sandbox.key, secret: sandbox.secret });
    const created = await idv.POST("/api/v2/send_text", {
      body: { reference: "msw", firstname: "Mere", lastname: "Tane", contact_phone: "64211234567" },
    });
    expect(created.response.status).toBe(200);
    const id = created.data?.transaction_id as string;
    // The record is the sandbox's: its control API, on the sandbox's own url, knows it.
    expect((await fetch(`${sandbox.url}/_sandbox/biometric_verifications/${id}`)).status).toBe(200);
    const wrong = createClient({ baseUrl, apiKey: sandbox.key, secret: "not-the-secret" });
    const refused = await wrong.POST("/api/v2/send_text", { body: { reference: "msw" } });
    expect(refused.response.status).toBe(401);
  });

  it("leaves other origins alone", async () => {
    await expect(fetch("https://elsewhere.example.test/api/v2/send_text")).rejects.toThrow();
  });

  it("refuses a base URL that is not an origin, saying which option", () => {
    expect(() => sandboxHandlers(sandbox, { baseUrl: "https://idv.example.test/v2" })).toThrow(
      /baseUrl must be an origin alone/,
    );
    expect(() => sandboxHandlers({} as InProcessSandbox)).toThrow(/createSandbox/);
  });
});
