// JSON Pointer reference tokens (RFC 6901): "~" is written "~0" and "/" is written "~1".

/** One key as a JSON Pointer reference token. */
export const escapeToken = (key: string): string => key.replace(/~/g, "~0").replace(/\//g, "~1");

/** The key one JSON Pointer reference token stands for. */
export const unescapeToken = (token: string): string => token.replace(/~1/g, "/").replace(/~0/g, "~");
