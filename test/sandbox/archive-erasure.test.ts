// A manual verification, a PEP check or an Online Ownership verification archived by its report's
// download keeps no personal data: the report shows the person, then the record in memory and in
// the --state file holds none of it, and a second download is still refused as archived.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Json, jsonRequestExamples, loadOpenApi } from "../support/contract.js";
import { startTestSandbox } from "../support/sandbox.js";
import { MANUAL } from "../../sandbox/products/manual.js";
import type { RecordKind } from "../../sandbox/state/store.js";
import { PEP } from "../../sandbox/products/pep.js";
import { PROPERTY } from "../../sandbox/products/property.js";

const FIRST = "Canaryfirst";
const LAST = "Canarylast";
const STREET = "Canarystreet";
const personal = (text: string) => [FIRST, LAST, STREET, "1985"].filter((canary) => text.includes(canary));
const doc = loadOpenApi();
/** The first of an operation's request examples that `pick` accepts. */
const example = (path: string, pick: (e: Json) => boolean = () => true): Json =>
  (jsonRequestExamples(doc, doc.paths[path].post) ?? []).find(pick);

describe("a record archived by its report's download", () => {
  it("shows the person in the report, then keeps no personal data in memory or in the state file", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "sbx-archive-")), "state.json");
    const sbx = await startTestSandbox({ stateFile: file });
    const { client } = sbx;
    const records = () => {
      const s = sbx.running.sandbox;
      const values = <K, V>(kind: RecordKind<K, V>) => [...s.records.records(kind).values()];
      return JSON.stringify([values(MANUAL), values(PEP), values(PROPERTY)]);
    };
    const reportText = (r: { data?: unknown }) => Buffer.from(r.data as ArrayBuffer).toString("latin1");
    try {
      const manualBody = example("/api/v2/manual_eidv");
      manualBody.individual = { ...manualBody.individual, first_name: FIRST, last_name: LAST };
      const manual = await client.POST("/api/v2/manual_eidv", { body: manualBody });
      const transactionId = manual.data?.metadata.transaction_id as string;
      const pep = await client.POST("/api/v4/pep_checks", {
        body: { reference: "R-1", firstname: FIRST, lastname: LAST, date_of_birth: "14/03/1985" },
      });
      const oovBody = example("/api/v4/properties", (e) => e.oov_attributes !== undefined);
      oovBody.oov_attributes = { ...oovBody.oov_attributes, firstname: FIRST, lastname: LAST };
      oovBody.address = { ...oovBody.address, line_1: STREET };
      const oov = await client.POST("/api/v4/properties", { body: oovBody });
      expect(personal(records()).sort()).toEqual([FIRST, LAST, STREET, "1985"].sort());

      const exportManual = () =>
        client.PUT("/api/v2/manual_eidv/{transaction_id}/export_and_archive", {
          params: { path: { transaction_id: transactionId } },
          body: {},
          parseAs: "arrayBuffer",
        });
      const pepPdf = () =>
        client.GET("/api/v4/pdf/pep_checks/{id}", {
          params: { path: { id: pep.data?.id as number } },
          parseAs: "arrayBuffer",
        });
      const oovPdf = () =>
        client.GET("/api/v4/pdf/properties/{id}/oov", {
          params: { path: { id: oov.data?.id as number } },
          parseAs: "arrayBuffer",
        });
      for (const download of [exportManual, pepPdf, oovPdf]) {
        const first = await download();
        expect(first.response.status).toBe(200);
        expect(reportText(first)).toContain(LAST);
      }
      expect(personal(records())).toEqual([]);
      // Archived, not forgotten: the service's answers to a second download stand.
      expect((await exportManual()).response.status).toBe(404);
      expect((await pepPdf()).response.status).toBe(400);
      expect((await oovPdf()).response.status).toBe(400);
    } finally {
      await sbx.running.close();
    }
    expect(personal(readFileSync(file, "utf8"))).toEqual([]);
  });
});
