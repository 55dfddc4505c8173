// Every operation makes or reads a record from the request's own data; unknown ids get the
// operation's 404; reports are real PDFs (a zip where the contract says). All the traffic and every
// delivery pass the conformance suite, through its library and through the idv-conformance CLI.
import { execFileSync, spawnSync } from "node:child_process";
import { createHmac } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";
import { AssetFiles } from "../../sandbox/products/files/asset-files.js";
import { apiError } from "../../src/index.js";
import { type Json, jsonRequestExamples, loadOpenApi, operations } from "../support/contract.js";
import { pdfStructureProblems } from "../support/pdf.js";
import {
  CREDENTIALS,
  deliveriesNdjson,
  deliveryViolations,
  hasUnzip,
  readZip,
  startRecorder,
  startTestSandbox,
  trafficViolations,
  until,
} from "../support/sandbox.js";
import { FRAUD } from "../../sandbox/products/fraud.js";

let sbx: Awaited<ReturnType<typeof startTestSandbox>>;
let receiver: Awaited<ReturnType<typeof startRecorder>>;
let workflow: Awaited<ReturnType<typeof startRecorder>>;
const doc = loadOpenApi();

beforeAll(async () => {
  receiver = await startRecorder();
  workflow = await startRecorder();
  sbx = await startTestSandbox();
  await sbx.control.addReceiver({
    url: `${receiver.url}/hook`,
    auth: { scheme: "basic", username: "idv", password: "pw-1" },
  });
  await sbx.control.addReceiver({ url: `${workflow.url}/cases/9d1f`, kind: "workflow" });
});
afterAll(async () => {
  await sbx.running.close();
  await receiver.close();
  await workflow.close();
});

// Paths and bodies come from the contract here; the typed client is driven untyped.
const call = (method: string, path: string, init: Json = {}) =>
  (sbx.client as Json)[method.toUpperCase()](path, init) as Promise<{
    data?: Json;
    error?: Json;
    response: Response;
  }>;
const file = (path: string, id: number | string) =>
  call("get", path, { params: { path: { id, transaction_id: id } }, parseAs: "arrayBuffer" });
const text = (r: { data?: Json }) => Buffer.from(r.data as ArrayBuffer).toString("latin1");

/** A new EDD case with the given reference; its id. */
async function newEddCase(reference: string): Promise<number> {
  const { data } = await sbx.client.POST("/api/v4/outsource_cases", {
    body: { reference, email: "contact@example.org", entity_type: "trust", contact_phone: "+64 21 555" },
  });
  return data?.id as number;
}

describe("records from the request's own data", () => {
  it("answers every JSON example request of the contract with 200", async () => {
    for (const { method, path, op } of operations(doc)) {
      if (path.includes("{") || method !== "post") continue;
      for (const body of jsonRequestExamples(doc, op) ?? []) {
        const r = await call(method, path, { body });
        expect(r.response.status, `${method} ${path}`).toBe(200);
      }
    }
  });

  it("a PEP check echoes the names sent, and its PDF carries them once, then ALREADY_ARCHIVED", async () => {
    const body = { reference: "pep-44", firstname: "Hemi", lastname: "Walker", date_of_birth: "02/07/1985" };
    const { data } = await sbx.client.POST("/api/v4/pep_checks", { body });
    expect(data).toMatchObject({ firstname: "Hemi", lastname: "Walker", date_of_birth: "1985-07-02" });
    const pdf = await file("/api/v4/pdf/pep_checks/{id}", data?.id as number);
    expect(pdf.response.headers.get("content-type")).toBe("application/pdf");
    expect(pdfStructureProblems(text(pdf))).toEqual([]);
    expect(text(pdf)).toContain("pep-44");
    expect(text(pdf)).toContain("Hemi");
    expect(apiError(await file("/api/v4/pdf/pep_checks/{id}", data?.id as number))).toMatchObject({
      status: 400,
      code: "ALREADY_ARCHIVED",
    });
  });

  it("a magic last name puts a PEP check on a watchlist", async () => {
    const body = {
      reference: "pep-45",
      firstname: "A",
      lastname: "sandbox-pep",
      date_of_birth: "02/07/1985",
    };
    const { data } = await sbx.client.POST("/api/v4/pep_checks", { body });
    expect(data?.is_pep_watchlist_clear).toBe(false);
  });

  it("unknown ids get the operation's 404 in its shape, whatever the id", async () => {
    for (const id of [5, 41]) {
      const r = await call("get", "/api/v4/outsource_cases/{id}", { params: { path: { id } } });
      expect(apiError(r)).toMatchObject({ status: 404, shape: "B", code: "NOT_FOUND" });
    }
    // An id past the contract's integer is not a request the recording should hold: sent unrecorded.
    const date = new Date().toISOString();
    const huge = await fetch(`${sbx.running.url}/api/v4/outsource_cases/999999999999999999999`, {
      headers: {
        "svc-api-key": CREDENTIALS.apiKey,
        "svc-date": date,
        "svc-signature": createHmac("sha256", CREDENTIALS.secret).update(date).digest("hex"),
      },
    });
    expect(huge.status).toBe(404);
    expect(await huge.json()).toMatchObject({ error_code: "NOT_FOUND" });
    const manual = await call("put", "/api/v2/manual_eidv/{transaction_id}/export_and_archive", {
      params: { path: { transaction_id: "7d41c9a2-0f3b-4e86-a215-9b6e3c8f1d07" } },
      body: {},
      parseAs: "arrayBuffer",
    });
    expect(manual.response.status).toBe(404);
  });

  it("a manual verification is exported once as a PDF, which archives it", async () => {
    const [body] = jsonRequestExamples(doc, doc.paths["/api/v2/manual_eidv"].post) ?? [];
    const { data } = await call("post", "/api/v2/manual_eidv", { body });
    const id = data.metadata.transaction_id;
    expect(data.metadata.reference).toBe(body.metadata.reference);
    expect(data.report).toBe(`/api/v2/manual_eidv/${id}/export_and_archive`);
    const exp = () =>
      call("put", "/api/v2/manual_eidv/{transaction_id}/export_and_archive", {
        params: { path: { transaction_id: id } },
        body: {},
        parseAs: "arrayBuffer",
      });
    const first = await exp();
    expect(pdfStructureProblems(text(first))).toEqual([]);
    expect(text(first)).toContain(body.individual.last_name);
    expect((await exp()).response.status).toBe(404);
  });

  it("an EDD upload's file name is kept to its last 255 characters, so uploads cannot grow memory past the budget", async () => {
    const id = await newEddCase("EDD-10");
    await sbx.client.upload("post", "/api/v4/outsource_cases/{id}/upload", {
      params: { path: { id } },
      file: new File([Buffer.from("deed")], `${"n".repeat(200_000)}.pdf`, { type: "application/pdf" }),
    });
    const got = await call("get", "/api/v4/outsource_cases/{id}", { params: { path: { id } } });
    const [name] = got.data.assets.map((a: Json) => a.file_name as string);
    expect(name).toBe(`${"n".repeat(251)}.pdf`);
  });

  it("an EDD case lists at most its last 100 uploads, so uploads cannot grow memory without bound", async () => {
    const id = await newEddCase("EDD-11");
    for (let i = 0; i < 105; i++) {
      const up = await sbx.client.upload("post", "/api/v4/outsource_cases/{id}/upload", {
        params: { path: { id } },
        file: new File([Buffer.from("deed")], `deed-${i}.pdf`, { type: "application/pdf" }),
      });
      expect(up).toBeDefined();
    }
    const got = await call("get", "/api/v4/outsource_cases/{id}", { params: { path: { id } } });
    const names = got.data.assets.map((a: Json) => a.file_name as string);
    expect(names.length).toBe(100);
    expect(names[0]).toBe("deed-5.pdf");
    expect(names.at(-1)).toBe("deed-104.pdf");
  });

  it("an EDD asset's download_url answers with the bytes, media type and name that were uploaded", async () => {
    const id = await newEddCase("EDD-12");
    const bytes = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7) % 256));
    const name = 'Trust "deed" – résumé.pdf';
    await sbx.client.upload("post", "/api/v4/outsource_cases/{id}/upload", {
      params: { path: { id } },
      file: new File([bytes], name, { type: "application/pdf" }),
    });
    const got = await call("get", "/api/v4/outsource_cases/{id}", { params: { path: { id } } });
    const [asset] = got.data.assets as Json[];
    expect(asset.file_name).toBe(name);
    const download = await fetch(asset.download_url);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("application/pdf");
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
    const disposition = download.headers.get("content-disposition") ?? "";
    expect(disposition).toBe(
      `attachment; filename="Trust _deed_ _ r_sum_.pdf"; filename*=UTF-8''${encodeURIComponent(name)}`,
    );
    // Another case's path, or an asset the case does not have, is not found.
    const elsewhere = await fetch(asset.download_url.replace(`/edd_cases/${id}/`, `/edd_cases/${id + 1}/`));
    expect(elsewhere.status).toBe(404);
    expect((await fetch(`${asset.download_url}9`)).status).toBe(404);
  });

  it("uploaded bytes are kept within a budget: the oldest are dropped first, and their download says why", () => {
    const files = new AssetFiles(10);
    expect(files.put(1, Buffer.from("abcd"), "text/plain", "a.txt")).toBe(true);
    expect(files.put(2, Buffer.from("efgh"), undefined, "b.bin")).toBe(true);
    expect(files.put(3, Buffer.from("ijkl"), "text/plain", "c.txt")).toBe(true);
    expect(files.size).toBe(8);
    expect(files.get(1)).toBeUndefined();
    expect(files.get(2)?.contentType).toBe("application/octet-stream");
    expect(files.put(4, Buffer.alloc(11), "text/plain", "big")).toBe(false);
    files.drop(2);
    expect(files.size).toBe(4);
  });

  it("an EDD case: the next GET lists an upload; completed sends case_completed", async () => {
    const id = await newEddCase("EDD-9");
    const up = await sbx.client.upload("post", "/api/v4/outsource_cases/{id}/upload", {
      params: { path: { id } },
      file: new File([Buffer.from("deed")], "trust-deed.pdf", { type: "application/pdf" }),
    });
    expect(up).toBeDefined();
    const got = await call("get", "/api/v4/outsource_cases/{id}", { params: { path: { id } } });
    expect(got.data.assets.map((a: Json) => a.file_name)).toEqual(["trust-deed.pdf"]);
    const patched = await call("patch", "/api/v4/outsource_cases/{id}/status", {
      params: { path: { id } },
      body: { process_status: "completed" },
    });
    expect(patched.data.process_status).toBe("completed");
    await until(() => receiver.received.some((r) => JSON.parse(r.body).event === "case_completed"));
    const delivery = receiver.received.find((r) => JSON.parse(r.body).event === "case_completed");
    expect(JSON.parse(delivery?.body ?? "{}")).toMatchObject({
      reference: "EDD-9",
      phone_number: "+6421555",
    });
    expect(delivery?.headers.authorization).toBe(`Basic ${Buffer.from("idv:pw-1").toString("base64")}`);
  });

  it("a title search whose title number starts with ZIP comes as a zip of document and plan", async () => {
    const body = {
      reference: "t-1",
      address: { line_1: "3 Quayside Walk" },
      res_attributes: { title_number: "ZIP231877" },
    };
    const { data } = await call("post", "/api/v4/properties", { body });
    expect(data.property_verifications[0].file_format).toBe("zip");
    const zip = await call("get", "/api/v4/properties/{id}/res", {
      params: { path: { id: data.id } },
      parseAs: "arrayBuffer",
    });
    expect(zip.response.headers.get("content-type")).toBe("application/zip");
    const entries = readZip(Buffer.from(zip.data));
    expect([...entries.keys()]).toEqual(["register.pdf", "plan.pdf"]);
    for (const pdf of entries.values()) expect(pdfStructureProblems(pdf.toString("latin1"))).toEqual([]);
    expect(entries.get("register.pdf")?.toString("latin1")).toContain("ZIP231877");
    if (hasUnzip()) {
      const dir = mkdtempSync(join(tmpdir(), "sbx-zip-"));
      writeFileSync(join(dir, "t.zip"), Buffer.from(zip.data));
      const test = spawnSync("unzip", ["-t", join(dir, "t.zip")], { encoding: "utf8" });
      expect(test.status, test.stdout).toBe(0);
    }
  });

  it("a workflow case sends case.completed with the X-Workflow headers and no credentials", async () => {
    const created = await sbx.control.workflow.create({ external_id: "onboarding-5521" });
    await sbx.control.workflow.complete(created.case_id, "approved");
    await workflow.arrived(1);
    const [got] = workflow.received;
    expect(got?.headers["x-workflow-event-type"]).toBe("case.completed");
    expect(got?.headers["x-workflow-webhook-id"]).toMatch(/^whk_[0-9A-Z]{26}$/);
    expect(got?.headers.authorization).toBeUndefined();
    expect(JSON.parse(got?.body ?? "{}")).toMatchObject({ case_id: created.case_id, status: "completed" });
    const silent = await sbx.control.workflow.create({});
    await sbx.control.workflow.complete(silent.case_id, "denied");
    expect((await sbx.control.deliveries({ subject: String(silent.case_id) })).length).toBe(0);
  });
});

describe("proven against the contract", () => {
  it("biometric journeys of every event add to the recording", async () => {
    const ids: string[] = [];
    for (const lastname of [
      "sandbox-pass",
      "sandbox-review",
      "sandbox-pending-error",
      "sandbox-error",
      "Ngata",
    ]) {
      const { data } = await sbx.client.POST("/api/v2/send_text", {
        body: { reference: "conformance", lastname, firstname: "Mere", contact_phone: "64211234567" },
      });
      ids.push(data?.transaction_id as string);
    }
    await until(() => sbx.deliveries.filter((d) => d.body.includes('"conformance"')).length >= 8);
    await sbx.control.biometric.edit(ids[0] as string, "checked");
    await file("/api/v2/biometric/pdf/{transaction_id}.pdf", ids[0] as string);
    await file("/api/v2/biometric/pdf/{transaction_id}.pdf", ids[1] as string);
    await call("put", "/api/v2/resend_text/{transaction_id}", {
      params: { path: { transaction_id: ids[4] } },
      body: { contact_phone: "64211234568" },
    });
    await sbx.control.advance("P1D");
    const events = new Set(sbx.deliveries.flatMap((d) => JSON.parse(d.body).event ?? []));
    expect([...events].sort()).toEqual(
      ["archived", "case_completed", "completed", "created", "error", "pending", "updated"].sort(),
    );
  });

  it("every recorded exchange conforms", async () => {
    // Errors the client provoked on purpose are in the recording too: they must be documented ones.
    expect(sbx.recorder.entries.length).toBeGreaterThan(20);
    expect(await trafficViolations(sbx.recorder.har())).toEqual([]);
    // The check can fail: a status the contract does not list is caught.
    const tampered = structuredClone(sbx.recorder.har());
    (tampered.log.entries[0] as { response: { status: number } }).response.status = 201;
    expect(await trafficViolations(tampered)).toHaveLength(1);
  });

  it("every delivery conforms, without a warning", async () => {
    await until(() => sbx.deliveries.length >= 2);
    expect(await deliveryViolations(sbx.deliveries)).toEqual([]);
    // No event was held back because the sandbox's own check found it broken.
    expect(sbx.lines.filter((line) => line.includes("sandbox defect"))).toEqual([]);
    // The check can fail: a completed event without its verification is caught.
    const broken = JSON.stringify({ ...JSON.parse(sbx.deliveries[0]?.body ?? "{}"), event: "completed" });
    expect(
      await deliveryViolations([{ ...(sbx.deliveries[0] as (typeof sbx.deliveries)[0]), body: broken }]),
    ).toHaveLength(1);
  });

  it("the idv-conformance CLI agrees: check and webhooks exit 0", () => {
    const dir = mkdtempSync(join(tmpdir(), "sbx-cli-"));
    writeFileSync(join(dir, "traffic.har"), JSON.stringify(sbx.recorder.har()));
    writeFileSync(join(dir, "deliveries.ndjson"), deliveriesNdjson(sbx.deliveries));
    const cli = (args: string[]) =>
      execFileSync(process.execPath, ["--import", "tsx", fromRoot("conformance/cli.ts"), ...args], {
        encoding: "utf8",
        cwd: fromRoot(),
      });
    expect(() => cli(["check", join(dir, "traffic.har")])).not.toThrow();
    expect(() => cli(["webhooks", join(dir, "deliveries.ndjson")])).not.toThrow();
  });
});

describe("bounded memory", () => {
  it("forgets the oldest records past the record budget; they answer 404", async () => {
    const { MAX_RECORDS } = await import("../../sandbox/sandbox.js");
    const small = await startTestSandbox();
    try {
      const first = await small.client.POST("/api/v4/pep_checks", {
        body: { reference: "oldest", firstname: "A", lastname: "B", date_of_birth: "14/03/1985" },
      });
      // Fill the budget without HTTP: the same path the service's creates take.
      for (let i = 0; i < MAX_RECORDS; i++) small.running.sandbox.records.put(FRAUD, i, {});
      const gone = await small.client.GET("/api/v4/pdf/pep_checks/{id}", {
        params: { path: { id: first.data?.id as number } },
        parseAs: "arrayBuffer",
      });
      expect(gone.response.status).toBe(404);
      expect(small.running.sandbox.fraud.size).toBe(MAX_RECORDS);
    } finally {
      await small.running.close();
    }
  });

  it("HEAD answers like GET without archiving", async () => {
    const { data } = await sbx.client.POST("/api/v4/pep_checks", {
      body: { reference: "head", firstname: "A", lastname: "B", date_of_birth: "14/03/1985" },
    });
    const url = `${sbx.running.url}/api/v4/pdf/pep_checks/${data?.id}`;
    const date = new Date().toISOString();
    const headers = {
      "svc-api-key": CREDENTIALS.apiKey,
      "svc-date": date,
      "svc-signature": createHmac("sha256", CREDENTIALS.secret).update(date).digest("hex"),
    };
    expect((await fetch(url, { method: "HEAD", headers })).status).toBe(200);
    expect((await fetch(url, { headers })).status).toBe(200);
    expect((await fetch(url, { headers })).status).toBe(400);
  });
});
