// The control helpers' calls in a sandbox of this process (createSandbox's `control`): each goes
// straight to the sandbox's answers, through the same routes, checks and handlers as its fetch, but
// without a Request and a Response each way (a third of a short test's time). What crosses is what a
// wire carries: the URL as openapi-fetch makes it, the body as its JSON text, and the answer read
// back from its JSON text, so the caller gets a copy and the same errors.
import { createFinalURL, createQuerySerializer, defaultPathSerializer } from "openapi-fetch";
import type { BodyRead } from "../../src/server/body.js";
import {
  answerLocally,
  failureAnswer,
  type FetchAdapterOptions,
  jsonTextOf,
  type PipelineApp,
} from "../../src/server/fetch-adapter.js";
import type { Answer } from "../../src/server/answer.js";
import type { ControlCalls, ControlOutcome } from "./client.js";

/** What the helpers pass to a call: openapi-fetch's init, as far as they use it. */
interface CallInit {
  params?: { path?: Record<string, unknown>; query?: Record<string, unknown> };
  body?: unknown;
}

const querySerializer = createQuerySerializer();

/** The body as readBody gives it: whole, or too large for the route's limit. */
const bodyOf =
  (bytes: Buffer) =>
  async (maxBytes: number): Promise<BodyRead> =>
    bytes.length > maxBytes ? { ok: false, tooLarge: true, size: bytes.length } : { ok: true, bytes };

/** What openapi-fetch makes of an answer: no body is undefined, JSON parsed; an error's text if not JSON. */
function outcomeOf(answer: Answer, text: string | undefined): ControlOutcome<unknown> {
  // Over fetch the Response's statusText is empty, as the adapter sets none.
  const response = { ok: answer.status >= 200 && answer.status < 300, status: answer.status, statusText: "" };
  const raw = text ?? answer.bytes?.toString("utf8") ?? "";
  if (answer.status === 204 || raw === "") return response.ok ? { data: undefined, response } : { response };
  if (response.ok) return { data: JSON.parse(raw) as unknown, response };
  try {
    return { error: JSON.parse(raw) as unknown, response };
  } catch {
    return { error: raw, response };
  }
}

/** The control calls answered by `app` in this process, as its fetch at `baseUrl` would answer them. */
export function directControlCalls(
  app: PipelineApp,
  baseUrl: string,
  options: FetchAdapterOptions,
): ControlCalls {
  const call =
    (method: string) =>
    async (template: string, init: CallInit = {}) => {
      const url = new URL(
        createFinalURL(template, {
          baseUrl,
          params: init.params ?? {},
          querySerializer,
          pathSerializer: defaultPathSerializer,
        }),
      );
      const body = init.body === undefined ? undefined : JSON.stringify(init.body);
      const headers: Record<string, string | undefined> = Object.create(null);
      if (body !== undefined) headers["content-type"] = "application/json";
      const { answer, pathname } = await answerLocally(
        app,
        {
          method,
          pathAndQuery: url.pathname + url.search,
          headers,
          readBody: bodyOf(Buffer.from(body ?? "")),
        },
        options,
      );
      let text: string | undefined;
      try {
        text = jsonTextOf(answer);
      } catch (error) {
        // An answer with no wire form is the app's failure, as the fetch adapter answers it.
        const failed = failureAnswer(options, error, pathname);
        return outcomeOf(failed, jsonTextOf(failed));
      }
      return outcomeOf(answer, text);
    };
  // Typed as openapi-fetch's methods, whose results unwrap reads only as ControlOutcome.
  return { GET: call("GET"), POST: call("POST"), DELETE: call("DELETE") } as unknown as ControlCalls;
}
