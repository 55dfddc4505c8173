// HTTP plumbing shared by the servers this package runs (the contract mock, the sandbox, the
// validating proxy). What it offers:
//
// - parseRequestTarget(req.url): path and query of any request target, never throwing (`//`,
//   `//%zz/api`, `http://`, `*` → undefined or a plain path); decodeSegment; queryRecord and
//   headerRecord (null-prototype).
// - readBody(req, maxBytes): the body in bytes, or { tooLarge } after draining the rest unkept.
// - decodeJsonBody(bytes): nesting and value count measured first, then fatal UTF-8 and JSON.parse →
//   value or problem.
// - parseMediaType, isJsonMediaType (`application/json`, `*/*+json`; never `application/json-evil`),
//   hasEssence(header, "multipart/form-data").
// - createSafeServer(handler, { errorBody }) / safeHandler: a thrown HttpError → its status, any
//   other throw → 500, a bad target → 400, parser errors → 400/408/431, all in the caller's error
//   shape; 'error' events on request, response and socket never reach the process; a head Node
//   would answer bare (no Host, over 1,000 headers, an Expect other than 100-continue) is refused
//   in the caller's shape and its connection closed (headRefusal).
// - sendAnswer(res, method, { status, json | bytes, headers }): a whole answer with its length (HEAD:
//   headers alone). The operation model (operations.ts: loadOperations, routeOperation, shapeOfPath),
//   the error shapes (error-body.ts) and the service's checks (check-request.ts: checkHeaders with
//   CRED_AT_RISK, checkBody, readJsonBody, unrouted 404/405) serve the mock and the sandbox alike.
// - The one request pipeline both run (pipeline.ts: runContract: route → headers → body within
//   MAX_SERVICE_BODY → credentials → body check, giving an Answer and its log line), transport-neutral,
//   with a node:http adapter (node-adapter.ts) and a WHATWG fetch adapter (fetch-adapter.ts: its
//   body read by stream-body.ts within the limit, a 60 s deadline and the request's signal).
// - parsePort, listen(server, port, host) → { url, close }, closeOnSignals(close?) (SIGINT/SIGTERM:
//   close every server `listen` started, then exit), startFailed (one line naming the port and host in use; exit 2).
export { type Answer, sendAnswer } from "./answer.js";
export { decodeJsonBody, jsonDepth, MAX_JSON_DEPTH, MAX_JSON_VALUES, readBody } from "./body.js";
export type { BodyRead, JsonProblem, JsonRead } from "./body.js";
export { createSafeServer, headRefusal, HttpError, MAX_REQUEST_HEADERS, safeHandler } from "./handler.js";
export type { ErrorBody, SafeHandler, SafeServerOptions } from "./handler.js";
export { closeAll, closeOnSignals, listen, parsePort, startFailed } from "./lifecycle.js";
export type { ListenAttempt } from "./lifecycle.js";
export type { Listening } from "./lifecycle.js";
export { headerRecord } from "./headers.js";
export { hasEssence, isJsonMediaType, parseMediaType } from "../contract/media-type.js";
export type { MediaType } from "../contract/media-type.js";
export { decodeSegment, parseRequestTarget, queryRecord } from "./request-target.js";
export type { RequestTarget } from "./request-target.js";
