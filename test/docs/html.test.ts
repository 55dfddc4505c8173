import { describe, expect, it } from "vitest";
import { escapeHtml, inlineMarkdown, scrollableTables, slug } from "../../scripts/docs/html.js";

describe("inlineMarkdown", () => {
  it.each([
    ["a paragraph joins its lines", "one\ntwo", "<p>one two</p>"],
    ["code and bold", "`a` **b**", "<p><code>a</code> <strong>b</strong></p>"],
    ["a heading sits two levels down", "## Rules", "<h4>Rules</h4>"],
    ["a list with a continuation line", "- a\n  more\n- b", "<ul><li>a more</li><li>b</li></ul>"],
    ["a relative link", "[gaps](gaps.html)", '<p><a href="gaps.html">gaps</a></p>'],
    ["a javascript: link stays text", "[x](javascript:void)", "<p>x</p>"],
    ["HTML is escaped", "<b>hi</b>", "<p>&lt;b&gt;hi&lt;/b&gt;</p>"],
    ["nothing", undefined, ""],
  ])("%s", (_what, given, want) => {
    expect(inlineMarkdown(given)).toBe(want);
  });
});

describe("escapeHtml and slug", () => {
  it("escapes the five HTML characters", () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  });

  it("makes ids from any text", () => {
    expect(slug("Webhooks (AsyncAPI)")).toBe("webhooks-asyncapi");
    expect(slug("***")).toBe("item");
  });
});

describe("scrollableTables", () => {
  it("puts each table, nested ones too, in a container of its own and leaves escaped text alone", () => {
    const html = '<table class="a"><tr><td><table><tr><td>&lt;table&gt;</td></tr></table></td></tr></table>';
    expect(scrollableTables(html)).toBe(
      '<div class="table-scroll"><table class="a"><tr><td><div class="table-scroll"><table><tr><td>&lt;table&gt;</td></tr></table></div></td></tr></table></div>',
    );
  });
});
