// What the mock, the sandbox and src/server take from the suite: the contract's schema compiler,
// multipart reading and `$ref` resolution. One surface, so that no server reaches into a room.
export type { SchemaCompiler } from "./checks/contract-model.js";
export { openSchemaCompiler } from "./checks/precompiled.js";
export { resolveRef } from "./checks/resolve-ref.js";
export { formParts, multipartBoundary } from "./traffic/multipart.js";
