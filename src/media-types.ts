// Media types of the file name extensions the service's uploads take, shared by the client (a Blob
// without a type of its own) and the sandbox (a file uploaded without a name).

/** The media type of each common file name extension, the preferred extension of a type first. */
export const FILE_MEDIA_TYPES: Readonly<Record<string, string>> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  txt: "text/plain",
  pdf: "application/pdf",
};

/** The preferred file name extension of a media type (no dot), or undefined when it has none here. */
export const extensionFor = (mediaType: string): string | undefined =>
  Object.keys(FILE_MEDIA_TYPES).find((e) => FILE_MEDIA_TYPES[e] === mediaType);

/** The media type of a file name extension (lower case, no dot); undefined for one not listed, `constructor` included. */
export const mediaTypeForExtension = (extension: string | undefined): string | undefined =>
  extension !== undefined && Object.hasOwn(FILE_MEDIA_TYPES, extension)
    ? FILE_MEDIA_TYPES[extension]
    : undefined;
