// A verification's captures (document images, liveness video, extracted face) are served by the
// sandbox at the URLs its events carry: no credentials, the right media types, valid 15 minutes on
// the virtual clock, then 403 as object storage answers; an edited URL is refused too.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRecorder, startTestSandbox } from "../support/sandbox.js";

let sbx: Awaited<ReturnType<typeof startTestSandbox>>;
let receiver: Awaited<ReturnType<typeof startRecorder>>;
beforeAll(async () => {
  sbx = await startTestSandbox();
  receiver = await startRecorder();
  await sbx.control.addReceiver({ url: `${receiver.url}/hooks`, kind: "events" });
});
afterAll(async () => {
  await sbx?.running.close();
  await receiver?.close();
});

/** The top-level boxes of an ISO base-media file: type and size, or undefined when they do not add up. */
function mp4Boxes(bytes: Buffer): string[] | undefined {
  const types: string[] = [];
  for (let at = 0; at < bytes.length;) {
    const size = bytes.readUInt32BE(at);
    if (size < 8 || at + size > bytes.length) return undefined;
    types.push(bytes.toString("latin1", at + 4, at + 8));
    at += size;
  }
  return types;
}

/** Every string of a nested object, as [path, value]. */
const urls = (value: unknown, path = ""): [string, string][] =>
  value !== null && typeof value === "object"
    ? Object.entries(value).flatMap(([k, v]) => urls(v, `${path}/${k}`))
    : typeof value === "string"
      ? [[path, value]]
      : [];

describe("capture URLs of a completed verification", () => {
  it("serve placeholder JPEG and MP4 bytes for 15 virtual minutes, then 403 in object storage's words", async () => {
    const created = await sbx.client.POST("/api/v2/send_text", {
      body: {
        reference: "captures-1",
        firstname: "Mere",
        lastname: "sandbox-pass",
        communication_method: "link",
      },
    });
    const id = created.data?.transaction_id ?? "";
    const completed = await sbx.control.waitForDelivery((d) => d.event === "completed", { subject: id });
    const capture = (completed.payload as { verification: { capture: unknown } }).verification.capture;
    const links = urls(capture);
    expect(links.map(([path]) => path).sort()).toEqual(
      [
        "/face/image_extracted",
        "/face/video",
        "/id_document/back_image",
        "/id_document/back_image_uncropped",
        "/id_document/face_image",
        "/id_document/front_image",
        "/id_document/front_image_uncropped",
      ].sort(),
    );
    for (const [path, url] of links) {
      expect(url.startsWith(`${sbx.running.url}/_captures/${id}/`), path).toBe(true);
      expect(new URL(url).searchParams.get("X-Amz-Expires")).toBe("900");
      const answer = await fetch(url);
      expect(answer.status, path).toBe(200);
      const bytes = Buffer.from(await answer.arrayBuffer());
      if (path === "/face/video") {
        expect(answer.headers.get("content-type")).toBe("video/mp4");
        expect(mp4Boxes(bytes)).toEqual(["ftyp", "moov"]);
        expect(bytes.includes(Buffer.from("mvhd"))).toBe(true);
      } else {
        expect(answer.headers.get("content-type")).toBe("image/jpeg");
        expect([...bytes.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
      }
    }
    const [, front] = links.find(([path]) => path === "/id_document/front_image") ?? ["", ""];
    // Another date in the URL: the signature no longer holds.
    const edited = new URL(front);
    edited.searchParams.set("X-Amz-Date", "29991231T000000Z");
    const forged = await fetch(edited);
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain("<Code>SignatureDoesNotMatch</Code>");

    await sbx.control.advance("PT14M");
    expect((await fetch(front)).status).toBe(200);
    await sbx.control.advance("PT2M");
    const expired = await fetch(front);
    expect(expired.status).toBe(403);
    expect(expired.headers.get("content-type")).toBe("application/xml");
    expect(await expired.text()).toMatch(
      /<Error><Code>AccessDenied<\/Code><Message>Request has expired<\/Message>/,
    );
  }, 30_000);

  it("answers 404 NoSuchKey for a transaction or a file the sandbox does not have", async () => {
    for (const path of [
      "/_captures/no-such-id/front.jpg",
      "/_captures/x/../etc.jpg",
      "/_captures/x/front.png",
    ]) {
      const answer = await fetch(`${sbx.running.url}${path}`);
      expect(answer.status, path).toBe(404);
      expect(await answer.text()).toContain("<Code>NoSuchKey</Code>");
    }
    expect((await fetch(`${sbx.running.url}/_captures/x/front.jpg`, { method: "DELETE" })).status).toBe(405);
  });
});

describe("capture URLs of an updated verification", () => {
  it("are the completed event's own after a review and an edit: media assets do not change", async () => {
    const created = await sbx.client.POST("/api/v2/send_text", {
      body: { reference: "captures-review", lastname: "Smith" },
    });
    const id = created.data?.transaction_id ?? "";
    await sbx.control.biometric.complete(id, "review");
    // Signed later on the virtual clock: URLs signed anew would differ in their date and signature.
    await sbx.control.advance("PT5M");
    await sbx.control.biometric.review(id, "pass");
    await sbx.control.advance("PT1M");
    await sbx.control.biometric.edit(id, "checked by hand");
    await sbx.control.settled();
    const kept = await sbx.control.deliveries({ subject: id });
    const captureOf = (event: string) =>
      kept
        .filter((d) => d.event === event)
        .map((d) => (d.payload as { verification: { capture: unknown } }).verification.capture);
    const [completed] = captureOf("completed");
    expect(urls(completed).length).toBeGreaterThan(0);
    expect(captureOf("updated")).toEqual([completed, completed]);
  });
});

describe("any request under /_captures/", () => {
  it("is answered 403 or 404 in XML (never a 5xx, never bytes) without a valid signature", async () => {
    // No dot-segment ("..", "%2e%2e"…): fetch resolves those before sending, out of /_captures/.
    const dotSegment = (text: string) => /^(\.|%2e){1,2}$/i.test(text);
    const segment = fc
      .oneof(
        fc.constantFrom("front.jpg", "liveness.mp4", "%zz", "__proto__", "", "%00.jpg"),
        fc.stringMatching(/^[\w.%-]{0,40}$/),
      )
      .filter((text) => !dotSegment(text));
    const param = fc.tuple(
      fc.constantFrom("X-Amz-Date", "X-Amz-Signature", "X-Amz-Expires", "x", "__proto__"),
      fc.string({ maxLength: 40 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(segment, { minLength: 1, maxLength: 4 }),
        fc.array(param, { maxLength: 5 }),
        async (segments, params) => {
          const query = new URLSearchParams(params).toString();
          const answer = await fetch(`${sbx.running.url}/_captures/${segments.join("/")}?${query}`);
          const text = await answer.text();
          expect([403, 404], `${segments.join("/")}?${query}`).toContain(answer.status);
          expect(text.startsWith("<?xml")).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
    expect((await fetch(`${sbx.running.url}/_sandbox/clock`)).status).toBe(200);
  });
});
