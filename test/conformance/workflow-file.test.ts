// `$file('path')` in a workflow's multipart payload: the probe sends the file beside the workflow
// document (as Respect does), never a file outside the document's directory, bounded in bytes.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fileReference, readWorkflowFile } from "../../src/arazzo/workflow-file.js";
import { probeOperations } from "../../conformance/probe/contract-operations.js";
import { packageWorkflows } from "../../conformance/probe/workflow-run.js";
import { stepCase } from "../../conformance/probe/workflow-step.js";
import { fromRoot } from "../../scripts/lib/paths.js";
import { loadOpenApi } from "../support/contract.js";

const PDF = readFileSync(fromRoot("arazzo/kowhai-family-trust-deed.pdf"));
const upload = probeOperations(loadOpenApi()).find((op) => op.operationId === "uploadEddCaseFile")!;
const values = { inputs: new Map(), steps: new Map([["create", new Map<string, unknown>([["id", 7]])]]) };
const step = (file: string) => ({
  stepId: "upload",
  operationId: "uploadEddCaseFile",
  parameters: [{ name: "id", in: "path", value: "$steps.create.outputs.id" }],
  requestBody: { contentType: "multipart/form-data", payload: { file } },
});

/** A directory with a workflow document, a file beside it and one outside it. */
function layout() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "idv-wf-file-")));
  mkdirSync(join(root, "flows"));
  writeFileSync(join(root, "flows", "a.arazzo.yaml"), "arazzo: 1.0.1\n");
  writeFileSync(join(root, "flows", "deed.pdf"), PDF);
  writeFileSync(join(root, "secret.txt"), "SECRET-OUTSIDE-5e1a");
  symlinkSync(join(root, "secret.txt"), join(root, "flows", "link.txt"));
  return { root, doc: join(root, "flows", "a.arazzo.yaml") };
}

describe("$file() in a workflow step", () => {
  it("reads $file('…') and $file(\"…\") only", () => {
    expect(fileReference("$file('a.pdf')")).toBe("a.pdf");
    expect(fileReference('$file("a.pdf")')).toBe("a.pdf");
    expect(fileReference("<contents of a.pdf>")).toBeUndefined();
    expect(fileReference(42)).toBeUndefined();
  });

  it("the EDD workflow's upload sends the PDF shipped beside it, as a pdf part with its name", () => {
    const edd = packageWorkflows().find((w) => w.id === "edd-case-upload-complete")!;
    expect(edd.documentFile).toBe(fromRoot("arazzo/edd-cases.arazzo.yaml"));
    const uploadStep = edd.steps.find((s) => s.stepId === "upload");
    const made = stepCase("edd: upload", uploadStep, upload, values, "m", edd.documentFile);
    if ("problem" in made) throw new Error(made.problem);
    const bytes = made.case.body!.bytes;
    expect(bytes.includes(PDF)).toBe(true);
    expect(bytes.toString("latin1")).toContain(
      'name="file"; filename="kowhai-family-trust-deed.pdf"\r\nContent-Type: application/pdf',
    );
    expect(PDF.subarray(0, 5).toString()).toBe("%PDF-");
  });

  it.each([
    ["../secret.txt", "outside the workflow's directory"],
    ["link.txt", "outside the workflow's directory"],
    ["/etc/passwd", "no relative path"],
    ["missing.pdf", "does not exist"],
    [".", "outside the workflow's directory"],
    ["a\0b", "no relative path"],
  ])("refuses %j: %s, and the step is not sent", (path, why) => {
    const { doc } = layout();
    const read = readWorkflowFile(doc, path);
    expect(read).toEqual({ problem: expect.stringContaining(why) });
    const made = stepCase("x: upload", step(`$file('${path}')`), upload, values, "m", doc);
    expect(made).toEqual({ problem: expect.stringContaining(why) });
  });

  it("refuses a file over the bound without reading it", () => {
    const { doc } = layout();
    expect(readWorkflowFile(doc, "deed.pdf", PDF.length - 1)).toEqual({
      problem: expect.stringContaining("over"),
    });
    expect(readWorkflowFile(doc, "deed.pdf", PDF.length)).toMatchObject({
      name: "deed.pdf",
      type: "application/pdf",
    });
  });

  it("whatever path a document names, nothing outside its directory is read", () => {
    const { doc } = layout();
    const segment = fc.constantFrom(
      "..",
      ".",
      "secret.txt",
      "link.txt",
      "deed.pdf",
      "flows",
      "",
      "/",
      "%2e%2e",
    );
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 6 }), fc.string({ maxLength: 8 }), (parts, tail) => {
        const read = readWorkflowFile(doc, [...parts, tail].join("/"));
        if ("problem" in read) return;
        expect(read.bytes.toString("latin1")).not.toContain("SECRET-OUTSIDE");
      }),
      { numRuns: 400 },
    );
  });

  it("a payload without $file() still sends the probe's own PDF", () => {
    const made = stepCase("x: upload", step("<contents of a.pdf>"), upload, values, "m");
    if ("problem" in made) throw new Error(made.problem);
    expect(made.case.body!.bytes.toString("latin1")).toContain('filename="probe.pdf"');
  });
});
