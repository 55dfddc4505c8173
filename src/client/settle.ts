// When a call of the client is over: its body read (openapi-fetch parses it before answering), or its
// streamed body read to the end. The attempt's deadline runs until then, and can fail the call first.
import { asConnectionError, scrubbed } from "./connection.js";
import { callOf } from "./errors.js";
import type { CallScope } from "./redirects.js";

type Result = { data?: unknown; error?: unknown; response: Response };

/**
 * The error of a body read: a connection that broke off (fetch's "terminated", caused by undici's
 * socket or parser error; Node 24 and later leave a parser error's code unset) names its host.
 */
function bodyError(error: unknown, call: CallScope): unknown {
  const cause = (error as { cause?: unknown } | null)?.cause;
  const broke = error instanceof TypeError && cause instanceof Error;
  return broke && call.url ? asConnectionError(error, call.url, call.where) : scrubbed(error);
}

/** The error a call rejects with: a JSON parser's message quotes the body, so it is replaced. */
function callError(error: unknown, call: CallScope): unknown {
  if (error instanceof SyntaxError && call.status !== undefined) {
    return new SyntaxError(`${call.where}: the response (HTTP ${call.status}) is not valid JSON`);
  }
  return bodyError(error, call);
}

/** A stream that stops the call's deadline at its end, and errors when the deadline passes first. */
function timedStream(source: ReadableStream<Uint8Array>, call: CallScope): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  const stop = () => call.stop?.();
  return new ReadableStream<Uint8Array>({
    start(controller) {
      // A fetch that ignores its signal never errors its body: the deadline errors this stream itself.
      call.fail = (reason) => {
        controller.error(reason);
        reader.cancel(reason).catch(() => {});
      };
    },
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          stop();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        stop();
        // A no-op when the deadline has already errored the stream.
        controller.error(bodyError(error, call));
      }
    },
    cancel(reason) {
      stop();
      return reader.cancel(reason);
    },
  });
}

/**
 * The answer, its body cut off with a RangeError past `max` bytes as read (decompressed) whenever the call
 * reads it whole: JSON, text, a download, and any error answer. A streamed success is the caller's to pace.
 */
export function bounded(response: Response, call: CallScope, max: number, stream: boolean): Response {
  const { body, headers } = response;
  let answer = response;
  // fetch reads no more than the Content-Length of a body it does not decode: most answers need no limit.
  const unbounded = headers.has("Content-Encoding") || !(Number(headers.get("Content-Length") ?? NaN) <= max);
  if (body && unbounded && !(stream && response.ok)) {
    let read = 0;
    const limited = body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          // Erroring the stream cancels the download under it.
          if ((read += chunk.byteLength) > max) {
            throw new RangeError(
              `${call.where}: the response (HTTP ${response.status}) is over ${max} bytes`,
            );
          }
          controller.enqueue(chunk);
        },
      }),
    );
    answer = Object.defineProperty(new Response(limited, response), "url", { value: response.url });
  }
  callOf.set(answer, call.where);
  return answer;
}

/**
 * Run one call; it settles when its body has been read, or the attempt's deadline passes first (even
 * through a fetch that ignores its signal). With `stream`, the deadline follows the streamed body instead.
 */
export function settle(call: CallScope, run: () => unknown, stream: boolean): Promise<Result> {
  return new Promise<Result>((resolve, reject) => {
    call.fail = reject;
    (run() as Promise<Result>).then(
      (result) => {
        const { data } = result;
        if (stream && call.stop && data instanceof ReadableStream) {
          resolve({ ...result, data: timedStream(data, call) });
          return;
        }
        call.stop?.();
        resolve(result);
      },
      (error: unknown) => {
        call.stop?.();
        reject(callError(error, call));
      },
    );
  });
}
