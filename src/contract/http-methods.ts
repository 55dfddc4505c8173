// The operations a Path Item Object may hold, in the order OpenAPI 3.1 lists them (§4.8.9.1): every
// walk of a contract visits them in this order, so that operations keep one order everywhere.

/** The HTTP methods of a Path Item Object, lower-cased as its member names are. */
export const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

/** One of a Path Item Object's operation members. */
export type HttpMethod = (typeof HTTP_METHODS)[number];

const METHOD_SET: ReadonlySet<string> = new Set(HTTP_METHODS);

/** Whether a path item's key names an operation. */
export const isHttpMethod = (key: string): boolean => METHOD_SET.has(key);
