// The package's entry point: the typed client of the identity-verification service.
export type { components, operations, paths, webhooks } from "../generated/types.js";
export { IdvConnectionError } from "./client/connection.js";
export { filenameFromContentDisposition } from "./client/content-disposition.js";
export { type ClientOptions, createClient, type IdvClient } from "./client/create-client.js";
export {
  type ApiError,
  ApiRequestError,
  apiError,
  classifyError,
  type ManualVerificationError,
  type ServiceError,
  unwrap,
} from "./client/errors.js";
export type { DownloadedFile, DownloadPath, FileHelpers, FileStream, UploadPath } from "./client/files.js";
export type { RetryOptions } from "./client/retry.js";
export { createHmacSigner, type SignatureEncoding, type Signer, type SignInput } from "./client/signer.js";
export { TimeoutError } from "./client/transport.js";
export { FileRejectedError } from "./client/upload-check.js";
