// createSandbox()'s fetch takes what fetch takes: a Request given as it is (with no init, or with
// only the `redirect` and `signal` a client adds) is read without being copied, as copying costs
// more than most answers; any other init is applied as fetch applies it; a used body is refused.
import { afterEach, describe, expect, it, vi } from "vitest";
import { createSandbox, type InProcessSandbox } from "../../sandbox/index.js";

let sandbox: InProcessSandbox | undefined;
afterEach(async () => {
  vi.unstubAllGlobals();
  await sandbox?.close();
  sandbox = undefined;
});

/**
 * Count the Requests made while `run` answers the one `given` makes (under a counting global Request,
 * the one the adapter finds; `given` is made with it, uncounted).
 */
async function requestsMadeBy(
  given: () => Request,
  run: (request: Request) => Promise<Response>,
): Promise<{ made: number; response: Response }> {
  const Original = globalThis.Request;
  let made = 0;
  vi.stubGlobal(
    "Request",
    class CountedRequest extends Original {
      constructor(input: RequestInfo | URL, init?: RequestInit) {
        super(input, init);
        made++;
      }
    },
  );
  try {
    const request = given();
    made = 0;
    const response = await run(request);
    return { made, response };
  } finally {
    vi.unstubAllGlobals();
  }
}

describe("createSandbox's fetch", () => {
  it("reads a Request given with no init, or only redirect and signal, as it is", async () => {
    sandbox = await createSandbox({ key: "k", secret: "s" });
    const fetch = sandbox.fetch;
    const url = `${sandbox.url}/_sandbox/clock`;
    for (const init of [undefined, { redirect: "manual" as const, signal: new AbortController().signal }]) {
      const { made, response } = await requestsMadeBy(
        () => new Request(url),
        (request) => fetch(request, init),
      );
      expect(made).toBe(0);
      expect(response.status).toBe(200);
      expect(await response.json()).toHaveProperty("now");
    }
  });

  it("applies any other init as fetch does, and reads the body of a given Request once", async () => {
    sandbox = await createSandbox({ key: "k", secret: "s" });
    const fetch = sandbox.fetch;
    const url = `${sandbox.url}/_sandbox/receivers`;
    const body = JSON.stringify({ url: "https://receiver.example/hook" });
    const headers = { "content-type": "application/json" };
    // The init's method wins over the Request's: a POST, as fetch would send.
    const { made, response } = await requestsMadeBy(
      () => new Request(url),
      (request) => fetch(request, { method: "POST", headers, body }),
    );
    expect(made).toBe(1);
    expect(response.status).toBe(201);
    const posted = new Request(url, { method: "POST", headers, body });
    expect((await fetch(posted, { redirect: "manual" })).status).toBe(201);
    expect(posted.bodyUsed).toBe(true);
    await expect(fetch(posted)).rejects.toThrow(TypeError);
    // An init with a redirect fetch does not know is refused as fetch refuses it.
    await expect(fetch(new Request(url), { redirect: "elsewhere" as RequestRedirect })).rejects.toThrow(
      TypeError,
    );
    const listed = (await (await fetch(url)).json()) as { receivers: unknown[] };
    expect(listed.receivers).toHaveLength(2);
  });
});

describe("createSandbox's fetch answers JSON", () => {
  it("with a Content-Length of its UTF-8 bytes, not of its characters", async () => {
    sandbox = await createSandbox({ key: "k", secret: "s" });
    const created = await sandbox.fetch(`${sandbox.url}/api/v2/send_text`, {
      method: "POST",
      headers: { "content-type": "application/json", "svc-api-key": "k", "svc-secret": "s" },
      body: JSON.stringify({
        reference: "ā-1",
        firstname: "Mārama",
        lastname: "Tāne",
        contact_phone: "64211234567",
      }),
    });
    expect(created.status).toBe(200);
    const { transaction_id } = (await created.json()) as { transaction_id: string };
    const record = await sandbox.fetch(`${sandbox.url}/_sandbox/biometric_verifications/${transaction_id}`);
    expect(record.headers.get("content-type")).toBe("application/json");
    const bytes = new Uint8Array(await record.arrayBuffer());
    expect(new TextDecoder().decode(bytes)).toContain(`"reference":"ā-1"`);
    expect(Number(record.headers.get("content-length"))).toBe(bytes.length);
  });
});
