// The keys of an OpenAPI path item that name operations: one list, kept with the contract model.
export { HTTP_METHODS, isHttpMethod } from "../../src/contract/http-methods.js";
