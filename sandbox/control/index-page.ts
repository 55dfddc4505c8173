// GET /_sandbox: the control API's operations as its own document lists them, so that the address
// `npm start` and `idv-sandbox` print answers with what can be done there.
import controlDocument from "../../generated/sandbox-control.json" with { type: "json" };
import { HTTP_METHODS } from "../../src/contract/http-methods.js";

/** One operation of the control API, as the index lists it. */
export interface ControlIndexEntry {
  method: string;
  path: string;
  summary: string;
}

/** Every operation of the control document, in the document's order. */
export const CONTROL_INDEX: readonly ControlIndexEntry[] = Object.entries(
  controlDocument.paths as Record<string, Record<string, { summary?: string }>>,
).flatMap(([path, item]) =>
  HTTP_METHODS.filter((m) => Object.hasOwn(item, m)).map((m) => ({
    method: m.toUpperCase(),
    path,
    summary: item[m]?.summary ?? "",
  })),
);
