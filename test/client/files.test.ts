import { describe, expect, it } from "vitest";
import { ApiRequestError, createClient, FileRejectedError } from "../../src/index.js";
import { BASE, recordingFetch } from "./recorder.js";

const PDF = new TextEncoder().encode("%PDF-1.7\n%fake report\n");
const fileAnswer =
  (type: string, disposition = 'attachment; filename="report.pdf"') =>
  () =>
    new Response(PDF, { headers: { "Content-Type": type, "Content-Disposition": disposition } });

describe("downloads", () => {
  it("returns filename, content type and bytes", async () => {
    const { fetch, sent } = recordingFetch(
      fileAnswer("application/pdf", "attachment; filename*=UTF-8''pep-7.pdf"),
    );
    const file = await createClient({ ...BASE, fetch }).download("get", "/api/v4/pdf/pep_checks/{id}", {
      params: { path: { id: 7 } },
    });
    expect(file).toEqual({ filename: "pep-7.pdf", contentType: "application/pdf", bytes: PDF });
    expect(sent[0]?.url).toBe("https://idv.test/api/v4/pdf/pep_checks/7");
  });

  it("sends the PUT body of export_and_archive and returns the PDF", async () => {
    const { fetch, sent } = recordingFetch(fileAnswer("application/pdf"));
    const file = await createClient({ ...BASE, fetch }).download(
      "put",
      "/api/v2/manual_eidv/{transaction_id}/export_and_archive",
      { params: { path: { transaction_id: "t-1" } }, body: {} },
    );
    expect(file.filename).toBe("report.pdf");
    expect(sent[0]?.method).toBe("PUT");
    expect(new TextDecoder().decode(sent[0]?.body)).toBe("{}");
  });

  it("accepts each media type the contract lists (a title search may be a zip)", async () => {
    const { fetch } = recordingFetch(fileAnswer("application/zip", 'attachment; filename="title.zip"'));
    const file = await createClient({ ...BASE, fetch }).download("get", "/api/v4/properties/{id}/res", {
      params: { path: { id: 3 } },
    });
    expect(file).toMatchObject({ filename: "title.zip", contentType: "application/zip" });
  });

  it("streams the bytes in the streaming variant", async () => {
    const { fetch } = recordingFetch(fileAnswer("application/pdf; charset=binary"));
    const file = await createClient({ ...BASE, fetch }).downloadStream(
      "get",
      "/api/v2/biometric/pdf/{transaction_id}.pdf",
      {
        params: { path: { transaction_id: "t-2" } },
      },
    );
    expect(file.filename).toBe("report.pdf");
    expect(new Uint8Array(await new Response(file.stream).arrayBuffer())).toEqual(PDF);
  });

  it("throws an ApiRequestError with the classified error on an error answer", async () => {
    const { fetch } = recordingFetch(() =>
      Response.json({ error_code: "ALREADY_ARCHIVED", message: "Data erased." }, { status: 400 }),
    );
    const call = createClient({ ...BASE, fetch }).download("get", "/api/v4/pdf/kyb_verifications/{id}", {
      params: { path: { id: 1 } },
    });
    await expect(call).rejects.toBeInstanceOf(ApiRequestError);
    await expect(call).rejects.toMatchObject({
      status: 400,
      error: { shape: "B", code: "ALREADY_ARCHIVED" },
    });
  });

  it("refuses an answer that is not the file the contract promises", async () => {
    const { fetch } = recordingFetch(
      () => new Response("<html></html>", { headers: { "Content-Type": "text/html" } }),
    );
    const call = createClient({ ...BASE, fetch }).download("get", "/api/v4/pdf/pep_checks/{id}", {
      params: { path: { id: 1 } },
    });
    await expect(call).rejects.toThrow(
      "GET /api/v4/pdf/pep_checks/{id} answered another Content-Type than the contract's application/pdf",
    );
  });

  it("refuses an operation that does not answer with a file", async () => {
    const { fetch, sent } = recordingFetch();
    const client = createClient({ ...BASE, fetch });
    await expect(client.download("get", "/api/v4/outsource_cases/{id}" as never)).rejects.toThrow(
      "GET /api/v4/outsource_cases/{id} does not answer with a file in the contract",
    );
    expect(sent).toEqual([]);
  });
});

describe("uploads", () => {
  const MB = 1024 * 1024;
  const upload = (file: Blob, filename?: string) => {
    const recorder = recordingFetch(() => Response.json({ id: 4, assets: [] }));
    const call = createClient({ ...BASE, fetch: recorder.fetch }).upload(
      "post",
      "/api/v4/outsource_cases/{id}/upload",
      {
        params: { path: { id: 4 } },
        file,
        ...(filename ? { filename } : {}),
      },
    );
    return { call, sent: recorder.sent };
  };

  it.each([
    ["a png", new Blob([new Uint8Array(10)], { type: "image/png" }), "scan.png"],
    ["a jpeg", new Blob(["x"], { type: "image/jpeg" }), "id.jpeg"],
    ["a jpg name", new Blob(["x"], { type: "image/jpeg" }), "id.JPG"],
    ["a txt", new File(["notes"], "notes.txt", { type: "text/plain" }), undefined],
    [
      "a pdf just under 10 MB",
      new Blob([new Uint8Array(10 * MB - 1)], { type: "application/pdf" }),
      "deed.pdf",
    ],
    ["an untyped Blob named .pdf", new Blob(["%PDF"]), "deed.pdf"],
    [
      "an application/octet-stream Blob named .png",
      new Blob(["x"], { type: "application/octet-stream" }),
      "scan.png",
    ],
    ["a typed Blob without a name", new Blob(["x"], { type: "application/pdf" }), undefined],
  ])("sends %s as the multipart part 'file'", async (_name, file, filename) => {
    const { call, sent } = upload(file, filename);
    expect(await call).toEqual({ id: 4, assets: [] });
    const request = sent[0];
    expect(request?.headers.get("Content-Type")).toMatch(/^multipart\/form-data; boundary=/);
    const form = await new Response(request?.body, { headers: request?.headers }).formData();
    const part = form.get("file") as File;
    expect(part.size).toBe(file.size);
    expect(["image/png", "image/jpeg", "text/plain", "application/pdf"]).toContain(part.type);
  });

  it.each([
    [
      "exactly 10 MB",
      new Blob([new Uint8Array(10 * MB)], { type: "application/pdf" }),
      "big.pdf",
      "size",
      /10485760 bytes \(10 MB\).*smaller than 10485760 bytes/,
    ],
    [
      "a gif",
      new Blob(["GIF89a"], { type: "image/gif" }),
      "anim.gif",
      "type",
      /file type \(image\/gif, \.gif\) is not accepted/,
    ],
    [
      "a png named .exe",
      new Blob(["x"], { type: "image/png" }),
      "run.exe",
      "type",
      /\(image\/png, \.exe\) is not accepted/,
    ],
    ["a Word file by name", new Blob(["x"]), "letter.docx", "type", /\(\.docx\) is not accepted/],
    [
      "an untyped nameless Blob",
      new Blob(["x"]),
      undefined,
      "type",
      /no media type and no file name extension/,
    ],
  ])("rejects %s before sending", async (_name, file, filename, reason, message) => {
    const { call, sent } = upload(file, filename);
    await expect(call).rejects.toBeInstanceOf(FileRejectedError);
    await expect(call).rejects.toMatchObject({ reason });
    await expect(call).rejects.toThrow(message);
    await expect(call).rejects.toThrow(
      /accepted: image\/png, image\/jpeg, text\/plain, application\/pdf|smaller than/,
    );
    expect(sent).toEqual([]);
  });

  it("throws an ApiRequestError when the service refuses the file", async () => {
    const { fetch } = recordingFetch(() =>
      Response.json({ error_code: "ASSET_FAILED", message: "Upload failed." }, { status: 500 }),
    );
    const call = createClient({ ...BASE, fetch, retry: false }).upload(
      "post",
      "/api/v4/outsource_cases/{id}/upload",
      {
        params: { path: { id: 4 } },
        file: new Blob(["x"], { type: "text/plain" }),
        filename: "a.txt",
      },
    );
    await expect(call).rejects.toMatchObject({ status: 500, error: { shape: "B", code: "ASSET_FAILED" } });
  });
});
