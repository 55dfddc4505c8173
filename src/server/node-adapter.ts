// The pipeline's node:http adapter: an IncomingMessage as a PipelineRequest, and a Served answer
// sent on the ServerResponse with its log line after it.
import type { IncomingMessage, ServerResponse } from "node:http";
import { sendAnswer } from "./answer.js";
import { readBody } from "./body.js";
import { headerRecord } from "./headers.js";
import type { PipelineRequest, Served } from "./pipeline.js";
import type { RequestTarget } from "./request-target.js";

/** A node:http request as the pipeline reads it (its target already parsed by the safe handler). */
export function nodeRequest(req: IncomingMessage, target: RequestTarget): PipelineRequest {
  return {
    method: (req.method ?? "GET").toUpperCase(),
    target,
    headers: headerRecord(req),
    readBody: (maxBytes) => readBody(req, maxBytes),
  };
}

/** Send a served answer (a HEAD request gets the headers alone), then log its line if it has one. */
export function sendServed(
  res: ServerResponse,
  method: string,
  { answer, line }: Served,
  log: (line: string) => void,
): void {
  sendAnswer(res, method, answer);
  if (line !== undefined) log(line);
}
