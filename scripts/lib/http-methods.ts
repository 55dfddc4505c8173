// The keys of an OpenAPI path item that name operations; its other keys (parameters, summary, …) do not.

/** The HTTP methods a path item may hold, in the order OpenAPI lists them. */
export const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

const METHOD_SET: ReadonlySet<string> = new Set(HTTP_METHODS);

/** Whether a path item's key names an operation. */
export const isHttpMethod = (key: string): boolean => METHOD_SET.has(key);
