// Where the sandbox answers besides the service's own paths: the URLs its records carry name these.

/** The path prefix of the control API. */
export const CONTROL_PREFIX = "/_sandbox";
