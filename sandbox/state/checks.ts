// Small checks of saved state, shared by the state file's shape and the products' slices of it.

/** A JSON object (not null, not an array). */
export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

export const isString = (v: unknown): v is string => typeof v === "string";
