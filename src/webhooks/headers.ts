/** Request headers as a Fetch `Headers` or a plain object such as node's `IncomingHttpHeaders`. */
export type HeadersLike = Headers | Record<string, string | readonly string[] | undefined>;

/** Read a header by name, case-insensitively; repeated values are joined as HTTP joins them. */
export function readHeader(headers: HeadersLike | null | undefined, name: string): string | undefined {
  if (headers === null || typeof headers !== "object") return undefined;
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(
    headers as Record<string, string | readonly string[] | undefined>,
  )) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    if (typeof value === "string") return value;
    return Array.isArray(value) ? value.join(", ") : String(value);
  }
  return undefined;
}
