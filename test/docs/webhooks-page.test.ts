import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { listMessages, renderWebhooksContent } from "../../scripts/docs/webhooks-page.js";
import { fromRoot } from "../../scripts/lib/paths.js";

const fixture = () => JSON.parse(readFileSync(fromRoot("test/docs/fixtures/asyncapi-small.json"), "utf8"));

/** The page's text without tags, whitespace folded, as a reader sees it. */
const visibleText = (html: string): string =>
  html
    .replace(/<[^>]+>/g, " ")
    .replace(/&quot;/g, '"')
    .replace(/\s+/g, " ");

describe("renderWebhooksContent", () => {
  const html = renderWebhooksContent(fixture());
  const text = visibleText(html);

  it("lists every message of every channel once, and component messages no channel uses", () => {
    expect(listMessages(fixture()).map((m) => [m.channelId, m.name])).toEqual([
      ["orders", "placed"],
      ["orders", "order.shipped"],
      ["", "orphan"],
    ]);
    for (const anchor of ["orders-placed", "orders-shipped", "other-unused"]) {
      expect(html.match(new RegExp(`<article class="message" id="${anchor}"`, "g"))).toHaveLength(1);
    }
  });

  it.each([
    ["a header member", "X-Delivery-Id"],
    ["a payload member from an allOf $ref", "order_id"],
    ["a narrowed const", 'const "placed"'],
    ["a member of array items", "tracking"],
    ["a oneOf variant", "one of: Courier"],
    ["a member inside a variant", "courier_name"],
    ["a type array", "string | null"],
    ["a constraint", "minimum 1"],
    ["an example value", "TRK-991"],
    ["the delivery description", "Retried up to 3 times."],
    ["a binding", "method POST"],
    ["an x- extension", "x-delivery"],
    ["a security scheme", "A bearer token."],
    ["a server variable", "hooks.example.com"],
    ["a list item with its continuation line", "Duplicates may arrive, so deduplicate."],
    ["a gap quote on a message", "Retry schedule: not shown."],
    ["the second gap of a list", "Signature: not shown."],
    ["a gap quote on a schema member", "note: not shown."],
  ])("shows %s", (_what, expected) => {
    expect(text).toContain(expected);
  });

  it("unfolds a component schema once per page and links later uses to it", () => {
    const ids = [...html.matchAll(/<tr id="(schema-parcel-\d+)"/g)].map((m) => m[1]);
    expect(ids).toHaveLength(1);
    expect(html).toContain(`Members as <a href="#${ids[0]}">above</a> (Parcel)`);
    expect(text.match(/tracking/g)).toHaveLength(2); // the member row, and the example value's key
  });

  it("escapes text from the document", () => {
    expect(html).not.toContain("<script>");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
  });

  it("turns Markdown headings into headings below the page's own", () => {
    expect(html).toContain("<h4>Delivery rules</h4>");
  });

  it("refuses a document that is not AsyncAPI 3", () => {
    expect(() => renderWebhooksContent({ asyncapi: "2.6.0", channels: {} })).toThrow(
      'expected an AsyncAPI 3.x document, found asyncapi: "2.6.0"',
    );
  });

  it("names a $ref that points at nothing", () => {
    const broken = fixture();
    broken.channels.orders.messages.placed = { $ref: "#/components/messages/Missing" };
    expect(() => renderWebhooksContent(broken)).toThrow(
      '$ref "#/components/messages/Missing" points at nothing',
    );
  });
});
