import { createHmac } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../src/index.js";
import { BASE } from "./recorder.js";

// A loopback server: the signature is checked against the bytes that really arrived, through Node's fetch.
const received: { headers: IncomingHttpHeaders; body: Buffer }[] = [];
let server: Server;
let baseUrl = "";

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify({ id: 1, assets: [] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const valid = ({ headers, body }: (typeof received)[number]) =>
  headers["svc-signature"] ===
  createHmac("sha256", BASE.secret).update(String(headers["svc-date"])).update(body).digest("hex");

describe("over real HTTP with Node's fetch", () => {
  it("signs exactly the JSON bytes the server receives", async () => {
    const client = createClient({ ...BASE, baseUrl });
    await client.POST("/api/v4/pep_checks", {
      body: { reference: "pép-1", firstname: "Zoë", lastname: "B", date_of_birth: "02/03/1990" },
    });
    const request = received.at(-1);
    expect(request?.body.toString("utf8")).toContain("Zoë");
    expect(request && valid(request)).toBe(true);
    expect(request?.headers["svc-secret"]).toBeUndefined();
  });

  it("signs a lone surrogate as the U+FFFD bytes fetch sends for it", async () => {
    const client = createClient({ ...BASE, baseUrl });
    await client.POST("/api/v4/pep_checks", {
      body: { reference: "r", firstname: "A", lastname: "B", date_of_birth: "02/03/1990" },
      // JSON.stringify escapes a lone surrogate; a serializer of the caller's may not.
      bodySerializer: () => '{"reference":"half \ud800 pair"}',
    });
    const request = received.at(-1);
    expect(request?.body.includes(Buffer.from("half \ufffd pair"))).toBe(true);
    expect(request && valid(request)).toBe(true);
  });

  it("signs exactly the multipart bytes the server receives", async () => {
    const client = createClient({ ...BASE, baseUrl });
    await client.upload("post", "/api/v4/outsource_cases/{id}/upload", {
      params: { path: { id: 1 } },
      file: new Blob(["%PDF-1.7 a tiny deed"], { type: "application/pdf" }),
      filename: "deed.pdf",
    });
    const request = received.at(-1);
    expect(request?.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    expect(request?.body.toString("latin1")).toContain("%PDF-1.7 a tiny deed");
    expect(request && valid(request)).toBe(true);
  });

  it("sends key and secret to a v2 operation", async () => {
    const client = createClient({ ...BASE, baseUrl });
    await client.POST("/api/v2/manual_eidv", {
      body: {
        metadata: { reference: "m-1" },
        individual: { first_name: "A", last_name: "B", date_of_birth: "1990-03-02" },
        address: { line_1: "1 High St", postcode: "AB1 2CD", country: "GBR", city: "London" },
      },
    });
    expect(received.at(-1)?.headers).toMatchObject({ "svc-api-key": BASE.apiKey, "svc-secret": BASE.secret });
  });
});
