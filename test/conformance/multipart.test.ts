// Multipart bodies are read into parts with their values as views, and a form of too many parts is
// not read at all: each part costs heap, and 10 MB of empty parts made 200,000 of them.
import { describe, expect, it } from "vitest";
import { formParts, MAX_FORM_PARTS } from "../../src/contract/multipart.js";

const form = (parts: number, boundary = "b0undary") =>
  Buffer.from(
    `${Array.from(
      { length: parts },
      (_, i) => `--${boundary}\r\nContent-Disposition: form-data; name="p${i}"\r\n\r\nv${i}\r\n`,
    ).join("")}--${boundary}--\r\n`,
  );

describe("formParts", () => {
  it("reads each part's name, size and value", () => {
    const parts = formParts({ kind: "bytes", bytes: form(3) }, "b0undary");
    expect(parts?.map((p) => [p.name, p.size, p.bytes?.toString()])).toEqual([
      ["p0", 2, "v0"],
      ["p1", 2, "v1"],
      ["p2", 2, "v2"],
    ]);
  });

  it("reads a form of MAX_FORM_PARTS parts, and none with more", () => {
    expect(formParts({ kind: "bytes", bytes: form(MAX_FORM_PARTS) }, "b0undary")).toHaveLength(
      MAX_FORM_PARTS,
    );
    expect(formParts({ kind: "bytes", bytes: form(MAX_FORM_PARTS + 1) }, "b0undary")).toBeUndefined();
  });
});

describe("formParts' Content-Disposition parameters", () => {
  const one = (disposition: string) =>
    formParts(
      {
        kind: "bytes",
        bytes: Buffer.from(`--b\r\nContent-Disposition: form-data; ${disposition}\r\n\r\nx\r\n--b--\r\n`),
      },
      "b",
    )?.[0];

  it.each([
    ['name="file"; filename="a b.pdf"', "file", "a b.pdf"],
    ["name=file; filename=scan.pdf", "file", "scan.pdf"],
    ['filename="scan.pdf"; name="file"', "file", "scan.pdf"],
    ['name="file"', "file", undefined],
    ["name=file; filename*=UTF-8''scan.pdf", "file", undefined],
  ])("%s: name %s, file name %s", (disposition, name, fileName) => {
    expect(one(disposition)).toMatchObject({ name, fileName });
  });
});
