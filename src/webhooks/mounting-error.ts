// Errors the handler raises about how it is mounted (a body read or parsed before it). Their message
// is the library's own words, with no value of the delivery in it, so the default onError may print it:
// it is the fix ("mount the handler before body parsers").

/** The errors made here; only these have a message the default logger prints. */
const OWN_WORDS = new WeakSet<Error>();

/** A TypeError whose message is written here and holds no value of the delivery. */
export function mountingError(message: string): TypeError {
  const error = new TypeError(message);
  OWN_WORDS.add(error);
  return error;
}

/** The message of a mounting error, or undefined for any other error (its message may quote the delivery). */
export function mountingMessage(error: unknown): string | undefined {
  return error instanceof Error && OWN_WORDS.has(error) ? error.message : undefined;
}
