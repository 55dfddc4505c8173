import { describe, expect, it } from "vitest";
import { filenameFromContentDisposition } from "../../src/client/content-disposition.js";

describe("filenameFromContentDisposition", () => {
  it.each([
    ["a quoted name", 'attachment; filename="verification-report.pdf"', "verification-report.pdf"],
    ["a token name", "attachment; filename=report.pdf", "report.pdf"],
    ["an RFC 5987 name", "attachment; filename*=UTF-8''r%C3%A9sum%C3%A9%20final.pdf", "résumé final.pdf"],
    [
      "filename* over filename",
      "attachment; filename=\"fallback.pdf\"; filename*=UTF-8''real.pdf",
      "real.pdf",
    ],
    ["filename* first", "attachment; filename*=utf-8'en'real.pdf; filename=\"fallback.pdf\"", "real.pdf"],
    ["an ISO-8859-1 name", "attachment; filename*=ISO-8859-1''caf%E9.pdf", "café.pdf"],
    ["a quoted semicolon", 'attachment; filename="a;b.pdf"', "a;b.pdf"],
    ["escaped quotes", 'attachment; filename="say \\"hi\\".pdf"', 'say "hi".pdf'],
    ["spaces around =", 'attachment; filename = "spaced.pdf"', "spaced.pdf"],
    ["a case-insensitive parameter name", 'attachment; FileName="upper.zip"', "upper.zip"],
    ["inline disposition", 'inline; filename="view.pdf"', "view.pdf"],
    ["a directory part", 'attachment; filename="../../etc/passwd"', "passwd"],
    ["a Windows directory part", 'attachment; filename="C:\\\\temp\\\\x.pdf"', "x.pdf"],
    [
      "a bad filename* falling back",
      "attachment; filename*=UTF-8''%E0%A4%A.pdf; filename=\"ok.pdf\"",
      "ok.pdf",
    ],
    ["an unknown charset falling back", "attachment; filename*=KOI8-R''x.pdf; filename=\"ok.pdf\"", "ok.pdf"],
    ["no file name", "attachment", undefined],
    ["only dots", 'attachment; filename=".."', undefined],
    ["an empty header", "", undefined],
    ["no header", null, undefined],
  ])("%s", (_name, header, want) => {
    expect(filenameFromContentDisposition(header)).toBe(want);
  });
});
