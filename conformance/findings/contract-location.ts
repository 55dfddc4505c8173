// Where in the contract a finding's rule lives: the operation (or message) part a check judged, as a
// JSON pointer into the contract document. Built only from the contract's own words (an operation's
// path template and method, a message's channel and id), never from what the traffic held.
import type { EntryResult, Finding } from "./findings.js";

/** The contract a run checked against, as the reports name it. */
export interface ContractFile {
  /** The file as given (--spec), or the bundled contract's path inside the package. */
  uri: string;
  /** Whether `uri` is inside the package (the bundled contract) rather than relative to the working directory. */
  bundled: boolean;
  kind: "openapi" | "asyncapi";
}

/** The bundled contract of a verb. */
export const bundledContractFile = (kind: "openapi" | "asyncapi"): ContractFile => ({
  uri: `generated/${kind}.json`,
  bundled: true,
  kind,
});

/** A JSON pointer token: `~` and `/` escaped (RFC 6901). */
const token = (s: string): string => s.replace(/~/g, "~0").replace(/\//g, "~1");

/** The part of an operation each check of `check` judges. */
const OPERATION_PART: Partial<Record<Finding["check"], string>> = {
  request_content_type: "/requestBody/content",
  request_body_schema: "/requestBody",
  request_parameters: "/parameters",
  auth_headers_present: "/security",
  status_code_documented: "/responses",
  response_content_type: "/responses",
  response_body_schema: "/responses",
  response_headers: "/responses",
  error_shape: "/responses",
};

/**
 * The JSON pointer of the contract location a finding broke, or undefined when it broke none (an
 * unreadable entry). With `document`, a part the operation does not write (security inherited from the
 * document's root) gives the nearest location that exists.
 */
export function contractPointer(
  kind: ContractFile["kind"],
  r: EntryResult,
  f: Finding,
  document?: unknown,
): string | undefined {
  let pointer = partPointer(kind, r, f);
  if (pointer === undefined || document === undefined) return pointer;
  // A route the contract writes, with no operation for the method: the path item.
  if (pointer === "/paths" && r.path.startsWith("/")) pointer = `/paths/${token(r.path)}`;
  let nearest = pointer;
  while (nearest !== "" && !resolves(document, nearest)) nearest = nearest.slice(0, nearest.lastIndexOf("/"));
  if (nearest === pointer) return nearest;
  // An operation without its own security inherits the document's; parameters may be the path item's.
  const inherited =
    f.check === "auth_headers_present"
      ? "/security"
      : f.check === "request_parameters"
        ? `/paths/${token(r.path)}/parameters`
        : undefined;
  if (inherited && resolves(document, inherited)) return inherited;
  return nearest;
}

/** Whether a pointer names a member of a document (own members only, never a prototype's). */
function resolves(document: unknown, pointer: string): boolean {
  let node = document;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, key)) return false;
    node = (node as Record<string, unknown>)[key];
  }
  return true;
}

function partPointer(kind: ContractFile["kind"], r: EntryResult, f: Finding): string | undefined {
  if (f.check === "entry_readable") return undefined;
  if (kind === "asyncapi") {
    const colon = r.operationId?.indexOf(":") ?? -1;
    if (!r.operationId || colon < 0) return "/channels";
    const channel = `/channels/${token(r.operationId.slice(0, colon))}`;
    return f.check === "channel_known"
      ? channel
      : `${channel}/messages/${token(r.operationId.slice(colon + 1))}`;
  }
  if (r.operationId === null || !r.path.startsWith("/")) return "/paths";
  const operation = `/paths/${token(r.path)}/${r.method.toLowerCase()}`;
  return operation + (OPERATION_PART[f.check] ?? "");
}

/** The contract of a run: the --spec file as given, else the verb's bundled contract. */
export function contractFile(command: "check" | "webhooks", spec?: string): ContractFile {
  const kind = command === "check" ? "openapi" : "asyncapi";
  return spec === undefined ? bundledContractFile(kind) : { uri: spec, bundled: false, kind };
}
