import type { Client, FetchResponse, MaybeOptionalInit } from "openapi-fetch";
import type { DownloadPaths, UploadPaths } from "../../generated/operations.js";
import type { paths } from "../../generated/types.js";
import { filenameFromContentDisposition } from "./content-disposition.js";
import { unwrap } from "./errors.js";
import { factsOf } from "./facts.js";
import { checkFile, defaultFilename, mediaTypeOf, ownName } from "./upload-check.js";

type Method = "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace";
// The path lists are written out by the generator: filtering the facts with a mapped type here made
// the consumer's compiler build some 90,000 types for each call (bench/client-types.ts).

/** Paths whose `method` operation answers with a file (PDF, zip…). */
export type DownloadPath<M extends Method> = M extends keyof DownloadPaths ? DownloadPaths[M] : never;
/** Paths whose `method` operation takes a multipart file with constraints. */
export type UploadPath<M extends Method> = M extends keyof UploadPaths ? UploadPaths[M] : never;

type Init<P extends keyof paths, M extends Method> = M extends keyof paths[P]
  ? MaybeOptionalInit<paths[P], M>
  : never;
type Data<P extends keyof paths, M extends Method> = paths[P][M & keyof paths[P]] extends infer O extends
  Record<string | number, unknown>
  ? NonNullable<FetchResponse<O, object, "application/json">["data"]>
  : never;
type InitArgs<I> = undefined extends I ? [init?: Exclude<I, undefined>] : [init: I];

/** A downloaded file. `filename` comes from Content-Disposition, without any directory part. */
export interface DownloadedFile {
  filename: string | undefined;
  contentType: string;
  bytes: Uint8Array;
}

/** A file being downloaded, as a stream of its bytes. */
export interface FileStream {
  filename: string | undefined;
  contentType: string;
  stream: ReadableStream<Uint8Array>;
}

type UploadInit<P extends keyof paths, M extends Method> = Omit<NonNullable<Init<P, M>>, "body"> & {
  /** The file to send: a Blob or File, checked against the contract's limits before sending. */
  file: Blob;
  /** The part's file name; defaults to the File's own name. */
  filename?: string;
};

/** The file helpers a client carries beside openapi-fetch's methods. */
export interface FileHelpers {
  /** Download a file operation's answer whole: `{ filename, contentType, bytes }`. Throws ApiRequestError. */
  download<M extends Method, P extends DownloadPath<M>>(
    method: M,
    path: P,
    ...init: InitArgs<Init<P, M>>
  ): Promise<DownloadedFile>;
  /** Download a file operation's answer as a stream: `{ filename, contentType, stream }`. Throws ApiRequestError. */
  downloadStream<M extends Method, P extends DownloadPath<M>>(
    method: M,
    path: P,
    ...init: InitArgs<Init<P, M>>
  ): Promise<FileStream>;
  /** Check a file against the contract's limits, then upload it as multipart/form-data. Throws FileRejectedError or ApiRequestError. */
  upload<M extends Method, P extends UploadPath<M>>(
    method: M,
    path: P,
    init: UploadInit<P, M>,
  ): Promise<Data<P, M>>;
}

// The helpers check their arguments at run time from the generated facts; inside, the client is loose.
type LooseClient = {
  request(
    method: string,
    path: string,
    init: object,
  ): Promise<{ data?: unknown; error?: unknown; response: Response }>;
};

async function fetchFile(
  client: LooseClient,
  method: string,
  path: string,
  init: object | undefined,
  parseAs: string,
) {
  const where = `${method.toUpperCase()} ${path}`;
  const binary = factsOf(method, path)?.binary;
  if (!binary?.length) throw new TypeError(`${where} does not answer with a file in the contract`);
  const result = await client.request(method, path, { ...init, parseAs });
  const data = unwrap(result, where);
  const { response } = result;
  const contentType = response.headers.get("Content-Type") ?? "";
  if (!binary.includes(mediaTypeOf(contentType))) {
    await (data as ReadableStream | null)?.cancel?.();
    throw new TypeError(
      // Never the header's value: any text the service sends.
      `${where} answered another Content-Type than the contract's ${binary.join(" or ")}`,
    );
  }
  return {
    filename: filenameFromContentDisposition(response.headers.get("Content-Disposition")),
    contentType,
    data,
  };
}

/** The download and upload helpers of one openapi-fetch client. */
export function fileHelpers(client: Client<paths>): FileHelpers {
  const loose = client as unknown as LooseClient;
  return {
    async download(method: string, path: string, init?: object) {
      const { data, ...file } = await fetchFile(loose, method, path, init, "arrayBuffer");
      return { ...file, bytes: new Uint8Array((data as ArrayBuffer | undefined) ?? new ArrayBuffer(0)) };
    },
    async downloadStream(method: string, path: string, init?: object) {
      const { data, ...file } = await fetchFile(loose, method, path, init, "stream");
      return { ...file, stream: (data as ReadableStream<Uint8Array> | null) ?? new Blob([]).stream() };
    },
    async upload(
      method: string,
      path: string,
      { file, filename, ...init }: { file: Blob; filename?: string },
    ) {
      const where = `${method.toUpperCase()} ${path}`;
      const limits = factsOf(method, path)?.files?.[0];
      if (!limits) throw new TypeError(`${where} takes no file in the contract`);
      if (!(file instanceof Blob)) throw new TypeError(`${where}: file must be a Blob or File`);
      const name = filename ?? ownName(file);
      const mediaType = checkFile(file, name, limits, where);
      const form = new FormData();
      // Re-typed unless the Blob already says exactly what the file was checked as (no type, a generic
      // application/octet-stream or a type with parameters is replaced by the checked media type).
      const part = file.type === mediaType ? file : new Blob([file], { type: mediaType });
      form.append(limits.part, part, name ?? defaultFilename(mediaType));
      return unwrap(await loose.request(method, path, { ...init, body: form }), where);
    },
  } as FileHelpers;
}
