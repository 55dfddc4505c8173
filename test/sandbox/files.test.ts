// The sandbox's own writers and parsers: PDFs whatever text they carry, zips unzip reads, durations.
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validateHeaderValue } from "node:http";
import { attachment } from "../../sandbox/products/files/asset-files.js";
import { parseDuration } from "../../sandbox/control/duration.js";
import { filenameFromContentDisposition } from "../../src/client/content-disposition.js";
import { renderPdf } from "../../sandbox/products/files/pdf.js";
import { renderZip } from "../../sandbox/products/files/zip.js";
import { pdfStructureProblems } from "../support/pdf.js";
import { hasUnzip, readZip } from "../support/sandbox.js";

describe("renderPdf", () => {
  it("is a sound PDF whatever the text (parentheses, backslashes, controls, any Unicode)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 60 }),
        fc.array(fc.string({ unit: "binary" }), { maxLength: 50 }),
        (title, lines) => {
          const pdf = renderPdf(title, lines).toString("latin1");
          expect(pdfStructureProblems(pdf)).toEqual([]);
          // Every string is balanced: an unescaped parenthesis would end it early.
          expect(pdf.replace(/\\[()\\]/g, "").split("(").length).toBe(
            pdf.replace(/\\[()\\]/g, "").split(")").length,
          );
        },
      ),
      { numRuns: 100 },
    );
  });

  it("carries Latin-1 text as written", () => {
    expect(renderPdf("Report", ["Name: Zoë (Müller)"]).toString("latin1")).toContain(
      "(Name: Zo\\353 \\(M\\374ller\\))",
    );
  });
});

describe("renderZip", () => {
  it("makes archives whose every entry reads back intact (and unzip -t passes, where installed)", () => {
    const dir = mkdtempSync(join(tmpdir(), "sbx-zip-"));
    const unzip = hasUnzip();
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.stringMatching(/^[a-z]{1,8}\.(pdf|txt)$/), fc.uint8Array({ maxLength: 4000 })), {
          minLength: 1,
          maxLength: 4,
        }),
        (files) => {
          const unique = [...new Map(files).entries()];
          const zip = renderZip(unique.map(([name, data]) => ({ name, data: Buffer.from(data) })));
          const read = readZip(zip);
          expect([...read.keys()]).toEqual(unique.map(([name]) => name));
          for (const [name, data] of unique)
            expect(Buffer.compare(read.get(name) as Buffer, Buffer.from(data))).toBe(0);
          if (unzip) {
            const file = join(dir, "a.zip");
            writeFileSync(file, zip);
            const run = spawnSync("unzip", ["-t", file], { encoding: "utf8" });
            expect(run.status, run.stdout).toBe(0);
          }
        },
      ),
      { numRuns: 15 },
    );
  });
});

describe("parseDuration", () => {
  it.each([
    ["PT1H", 3_600_000],
    ["P7D", 604_800_000],
    ["PT90S", 90_000],
    ["PT0.5S", 500],
    ["P1W", 604_800_000],
    ["P1DT2H3M4S", 93_784_000],
  ])("%s is %d ms", (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(["", "P", "PT", "1H", "P1M", "P1Y", "PT-1H", "P1DT", "PT1H ", "P99999999D"])("refuses %j", (text) =>
    expect(() => parseDuration(text)).toThrow(/duration must/),
  );
});

describe("attachment", () => {
  it("is a valid header for any file name, which the client reads back exactly", () => {
    fc.assert(
      fc.property(
        // Names as the sandbox keeps them (no directory separator); the client trims and refuses `.` and `..`.
        fc
          .string({ unit: "binary", minLength: 1, maxLength: 80 })
          .filter((n) => n === n.trim() && !/[\\/]/.test(n) && n !== "." && n !== ".."),
        (name) => {
          const header = attachment(name);
          expect(() => validateHeaderValue("content-disposition", header)).not.toThrow();
          expect(header).toMatch(/^[\x20-\x7e]*$/);
          // A lone surrogate cannot be encoded: it arrives as U+FFFD, like any UTF-8 encoder writes it.
          expect(filenameFromContentDisposition(header)).toBe(Buffer.from(name).toString());
        },
      ),
      { numRuns: 300 },
    );
  });
});
