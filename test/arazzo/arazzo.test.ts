// The workflows of arazzo/: Redocly lints them clean, every reference resolves against the bundled
// contract, and together they cover every operation and every event the document sends in a journey.
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { checkArazzo } from "../../scripts/arazzo/check.js";
import { NOT_AWAITED, asyncApiMessages, uncovered } from "../../scripts/arazzo/coverage.js";
import { receives, steps } from "../../src/arazzo/documents.js";
import { loadArazzo } from "../../scripts/arazzo/load-yaml.js";
import { lintContract } from "../../scripts/contract/openapi-bundle.js";
import { fromRoot, ROOT } from "../../scripts/lib/paths.js";
import {
  gapMarks,
  loadAsyncApi,
  loadInterfaceDocument,
  loadOpenApi,
  normaliseSpace,
  usedExtensions,
} from "../support/contract.js";

const files = loadArazzo(ROOT);
const contract = { openapi: loadOpenApi(), asyncapi: loadAsyncApi() };
const byPath = files.map((f) => [f.path, f] as const);

describe("the Arazzo documents", () => {
  it("are there, one per product", () => {
    expect(files.map((f) => f.path)).toEqual(
      [
        "biometric-verification",
        "edd-cases",
        "fraud-analytics",
        "kyb-verifications",
        "manual-verification",
        "pep-checks",
        "property-verification",
      ].map((name) => `arazzo/${name}.arazzo.yaml`),
    );
  });

  it.each(byPath)("%s: redocly lint finds zero errors and zero warnings", (path) => {
    const result = lintContract(path);
    expect(result.problems).toEqual([]);
    expect([result.errors, result.warnings]).toEqual([0, 0]);
  });

  it.each(byPath)(
    "%s: every operation, parameter, example, event, expression and output resolves",
    (_p, file) => {
      expect(checkArazzo(file, contract)).toEqual([]);
    },
  );

  it.each(byPath)(
    "%s: is Arazzo 1.0.1, and its sources are files beside it in the package too",
    (_p, file) => {
      expect(file.document.arazzo).toBe("1.0.1");
      const sources = [...file.document.sourceDescriptions, ...(file.document["x-event-sources"] ?? [])];
      for (const s of sources)
        expect(existsSync(resolve(dirname(fromRoot(file.path)), s.url)), s.url).toBe(true);
    },
  );
});

describe("coverage", () => {
  it("every operation of the contract is a step and every event is awaited", () => {
    expect(uncovered(files, contract.openapi, contract.asyncapi)).toEqual({ operations: [], events: [] });
  });

  it("only events no journey starts go unawaited, and the document's words say why", () => {
    const messages = asyncApiMessages(contract.asyncapi);
    const interfaceText = normaliseSpace(loadInterfaceDocument());
    for (const [message, quote] of Object.entries(NOT_AWAITED)) {
      expect(messages).toContain(message);
      expect(interfaceText).toContain(normaliseSpace(quote));
    }
    const awaited = files.flatMap((f) => receives(f.document).map((r) => r.entry.message));
    expect(awaited.filter((m) => Object.hasOwn(NOT_AWAITED, m))).toEqual([]);
  });

  // The journeys the document describes, as the operations each calls in order.
  const journeys: [string, string[]][] = [
    [
      "manual-verification-export",
      [
        "createManualVerification",
        "getManualPepWatchlist",
        "exportAndArchiveManualVerification",
        "exportAndArchiveManualVerification",
      ],
    ],
    [
      "biometric-resend-then-pdf",
      ["createBiometricVerification", "resendBiometricVerification", "getBiometricPdf", "getBiometricPdf"],
    ],
    ["pep-check-pdf", ["createPepCheck", "getPepCheckPdf", "getPepCheckPdf"]],
    [
      "property-search-ownership-title",
      [
        "searchProperty",
        "createPropertyVerification",
        "getOnlineOwnershipPdf",
        "getOnlineOwnershipPdf",
        "createPropertyVerification",
        "getTitleSearchDocument",
      ],
    ],
    [
      "edd-case-upload-complete",
      ["createEddCase", "uploadEddCaseFile", "getEddCase", "updateEddCaseStatus", "getEddCase"],
    ],
    [
      "kyb-search-verify-pdf",
      ["searchKybCompanies", "createKybVerification", "getKybVerificationPdf", "getKybVerificationPdf"],
    ],
  ];
  it.each(journeys)("the journey %s calls the operations the document lists, in order", (workflowId, ops) => {
    const called = files.flatMap((f) => steps(f.document)).filter((s) => s.workflowId === workflowId);
    expect(called.map((s) => s.step.operationId)).toEqual(ops);
  });

  it("the biometric resend awaits the original's archived event and the new verification's created event", () => {
    const resend = files
      .flatMap((f) => receives(f.document))
      .filter((r) => r.workflowId === "biometric-resend-then-pdf" && r.step.stepId === "resend");
    expect(resend.map((r) => [r.entry.message.split("/").pop(), r.entry.correlationId])).toEqual([
      ["archived", "$steps.create.outputs.transactionId"],
      ["created", "$steps.resend.outputs.transactionId"],
      ["completed", "$steps.resend.outputs.transactionId"],
    ]);
  });
});

describe("gaps and extensions", () => {
  const interfaceText = normaliseSpace(loadInterfaceDocument());
  const readme = readFileSync(fromRoot("arazzo/README.md"), "utf8");
  const extensions = readFileSync(fromRoot("openapi/extensions.md"), "utf8");

  it.each(byPath)("%s: every x-gap quotes the document and states a choice", (_p, file) => {
    for (const { gap } of gapMarks(file.document)) {
      expect(Object.keys(gap).sort()).toEqual(["choice", "quote"]);
      expect(gap.choice.trim().length).toBeGreaterThan(0);
      expect(interfaceText).toContain(normaliseSpace(gap.quote));
    }
  });

  it("every x- extension the workflows use is documented", () => {
    const used = new Set(files.flatMap((f) => [...usedExtensions(f.document)]));
    expect([...used].sort()).toEqual(["x-event-sources", "x-gap", "x-receive"]);
    for (const x of used) {
      const heading = new RegExp(`^## \`${x}\``, "m");
      expect(heading.test(readme) || heading.test(extensions), x).toBe(true);
    }
  });

  it("the README lists every workflow", () => {
    for (const f of files)
      for (const w of f.document.workflows) expect(readme, w.workflowId).toContain(`\`${w.workflowId}\``);
  });
});
