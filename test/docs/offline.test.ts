import { describe, expect, it } from "vitest";
import { findExternalLoads, localiseAssets } from "../../scripts/docs/offline.js";

describe("findExternalLoads", () => {
  it.each([
    ["a font stylesheet", '<link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Roboto">'],
    ["a CDN script", '<script src="https://cdn.redocly.com/redoc/v2/bundles/redoc.standalone.js"></script>'],
    ["a protocol-relative image", "<img alt='' src=//example.com/logo.png>"],
    ["a CSS url()", "<style>body{background:url('https://example.com/bg.png')}</style>"],
    ["a CSS @import", '<style>@import "https://example.com/theme.css";</style>'],
    [
      "an asset host inside a script string",
      "<script>const logo = `https://cdn.redoc.ly/redoc/logo-mini.svg`;</script>",
    ],
  ])("finds %s", (_what, html) => {
    expect(findExternalLoads(html)).not.toEqual([]);
  });

  it.each([
    ["a navigation link", '<a href="https://redocly.com/redoc/">API docs by Redocly</a>'],
    ["an SVG namespace", '<svg xmlns="http://www.w3.org/2000/svg"><g></g></svg>'],
    ["local assets", '<link rel="stylesheet" href="assets/style.css"><img src="assets/redocly-logo.svg">'],
    ["a data: icon", '<link rel="icon" href="data:,">'],
  ])("ignores %s", (_what, html) => {
    expect(findExternalLoads(html)).toEqual([]);
  });
});

describe("localiseAssets", () => {
  it("points the Redocly logo at the local asset and drops font links", () => {
    const html = localiseAssets(
      '<head><link rel="preconnect" href="https://fonts.gstatic.com">\n<link href="https://fonts.googleapis.com/css2?family=Inter" rel="stylesheet"></head>' +
        "<script>src:e?`https://cdn.redoc.ly/redoc/logo-mini-full.svg`:`https://cdn.redoc.ly/redoc/logo-mini.svg`</script>",
    );
    expect(html).toBe(
      "<head></head><script>src:e?`assets/redocly-logo.svg`:`assets/redocly-logo.svg`</script>",
    );
    expect(findExternalLoads(html)).toEqual([]);
  });
});
