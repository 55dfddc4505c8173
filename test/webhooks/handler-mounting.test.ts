// The default onError of a handler mounted after a body parser (express.json): the line says the fix,
// which is the library's own words, and no value of the delivery.
import { afterEach, describe, expect, it, vi } from "vitest";
import { createWebhookHandler } from "../../src/webhooks/index.js";
import { deliveryOf, personalValues } from "./deliveries.js";
import { serve } from "./handler-servers.js";

const TOKEN = "tok_mounting_test_62d1";
const BEARER = { scheme: "bearer", token: TOKEN } as const;
const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((close) => close()));
});

describe("createWebhookHandler mounted after a body parser", () => {
  it("by default prints the fix when mounted after a body parser (express.json), and no delivery value", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const handler = createWebhookHandler({ credentials: BEARER, on: () => undefined });
      const d = deliveryOf("completed");
      // What express.json() leaves: the stream read to its end, the body an object.
      const { url, close } = await serve((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("end", () => {
          (req as { body?: unknown }).body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
          handler.node(req, res);
        });
      });
      open.push(close);
      const answer = await fetch(url, {
        method: "POST",
        headers: { ...d.headers, Authorization: `Bearer ${TOKEN}` },
        body: d.body,
      });
      expect(answer.status).toBe(500);
      const text = logged.mock.calls.flat().join("\n");
      expect(text).toBe(
        "idv-contract/webhooks: body failed (TypeError: The request's body was parsed before the webhook handler (express.json or the like): mount the handler before body parsers, or read the body with express.raw().); pass onError to handle it",
      );
      // No value of the delivery: neither its personal values nor any other string of it.
      const strings = JSON.stringify(d.payload).match(/"[^"]{6,}"/g) ?? [];
      for (const value of [...personalValues(d.payload), ...strings]) expect(text).not.toContain(value);
      expect(text).not.toContain(TOKEN);
    } finally {
      logged.mockRestore();
    }
  });
});
