import { describe, expect, it } from "vitest";
import { checkFile, FileRejectedError } from "../../src/client/upload-check.js";

const LIMITS = {
  part: "file",
  maxBytesExclusive: 1024,
  mediaTypes: ["application/pdf", "image/png"],
  extensions: ["pdf", "png"],
} as never;

describe("a file's extension is read as a name, never as a member of the table", () => {
  for (const extension of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
    it(`a Blob with no type named x.${extension} is refused as having no media type`, () => {
      const refuse = () => checkFile(new Blob(["%PDF-1.7"]), `x.${extension}`, LIMITS, "file");
      expect(refuse).toThrow(FileRejectedError);
      expect(refuse).toThrow(`the file type (.${extension.toLowerCase()}) is not accepted`);
    });
  }

  it("a Blob with no type named x.pdf takes the extension's media type", () => {
    expect(checkFile(new Blob(["%PDF-1.7"]), "x.pdf", LIMITS, "file")).toBe("application/pdf");
  });
});
