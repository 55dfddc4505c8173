import { extensionFor, mediaTypeForExtension } from "../media-types.js";
import type { OperationFacts } from "./facts.js";

type FileLimits = NonNullable<OperationFacts["files"]>[number];

/** Raised before sending when a file breaks the operation's x-file-constraints. */
export class FileRejectedError extends Error {
  override name = "FileRejectedError";
  constructor(
    readonly reason: "size" | "type",
    message: string,
  ) {
    super(message);
  }
}

const extensionOf = (name: string | undefined): string | undefined => {
  const match = /\.([^./\\]+)$/.exec(name ?? "");
  return match?.[1]?.toLowerCase();
};

/** The media type of a Content-Type value, without parameters, in lower case ("" when absent). */
export const mediaTypeOf = (value: string | null): string => value?.split(";")[0]?.trim().toLowerCase() ?? "";

const megabytes = (bytes: number): string => `${(bytes / 1048576).toFixed(1).replace(/\.0$/, "")} MB`;

/** Check a file against an operation's limits; returns the media type to send it as. */
export function checkFile(
  file: Blob,
  filename: string | undefined,
  limits: FileLimits,
  where: string,
): string {
  const { maxBytesExclusive, mediaTypes, extensions } = limits;
  if (file.size >= maxBytesExclusive) {
    throw new FileRejectedError(
      "size",
      `${where}: the file is ${file.size} bytes (${megabytes(file.size)}); ` +
        `the service accepts files smaller than ${maxBytesExclusive} bytes`,
    );
  }
  const extension = extensionOf(filename);
  const declared = mediaTypeOf(file.type);
  const mediaType =
    // The extension's type only when a Blob carries no type of its own.
    declared && declared !== "application/octet-stream" ? declared : mediaTypeForExtension(extension);
  if (!mediaType || !mediaTypes.includes(mediaType) || (extension && !extensions.includes(extension))) {
    const what = [mediaType, extension && `.${extension}`].filter(Boolean).join(", ");
    throw new FileRejectedError(
      "type",
      `${where}: the file type (${what || "no media type and no file name extension"}) is not accepted; ` +
        `accepted: ${mediaTypes.join(", ")} (${extensions.map((e) => `.${e}`).join(", ")})`,
    );
  }
  return mediaType;
}

/** The file name a Blob carries when it is a File. */
export const ownName = (file: Blob): string | undefined =>
  typeof (file as { name?: unknown }).name === "string" ? (file as File).name : undefined;

/** A part name for a file that came without one, made from its media type. */
export function defaultFilename(mediaType: string): string {
  const extension = extensionFor(mediaType);
  return extension ? `upload.${extension}` : "upload";
}
