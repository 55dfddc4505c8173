// One router for every reader of the contract: the servers, the conformance checks, the recorder.
/** What a route table answers for a method and path. */
export type RouteMatch<T> =
  | { kind: "found"; target: T; params: Record<string, string> }
  | { kind: "method-not-allowed"; allowed: string[] }
  | { kind: "not-found"; hint?: string };

interface CompiledRoute<T> {
  template: string;
  method: string;
  regex: RegExp;
  names: string[];
  literal: boolean;
  target: T;
}

/** Segments of an unmatched path a report shows; a hostile path may have a million. */
const MAX_SHAPE_SEGMENTS = 24;

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Compile `/a/{id}.pdf` into an anchored regex with one group per parameter. */
function compileTemplate(template: string): { regex: RegExp; names: string[]; literal: boolean } {
  const names: string[] = [];
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const name = /^\{([^}]+)\}$/.exec(part)?.[1];
      if (name === undefined) return escapeRegex(part);
      names.push(name);
      return "([^/]+)";
    })
    .join("");
  return { regex: new RegExp(`^${source}$`), names, literal: names.length === 0 };
}

const segmentCount = (path: string): number => {
  let n = 0;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47) n++;
  return n;
};

/**
 * Path templates compiled once, bucketed by segment count so a lookup tries a handful of regexes.
 * Literal paths win over templated ones, as OpenAPI requires.
 */
export class RouteTable<T> {
  private readonly buckets = new Map<number, CompiledRoute<T>[]>();
  /** Every route by segment count, in the order given (the hint names the first that matches). */
  private readonly bySegments = new Map<number, CompiledRoute<T>[]>();
  private readonly basePaths: string[];
  /** The literal segments of every template: the only recorded segments a report may repeat. */
  private readonly literals = new Set<string>();

  /** @param basePaths prefixes stripped from recorded paths before matching (e.g. a server URL's path) */
  constructor(routes: { template: string; method: string; target: T }[], basePaths: string[] = []) {
    for (const route of routes) {
      for (const segment of route.template.split("/")) if (!segment.includes("{")) this.literals.add(segment);
      const compiled = { ...route, method: route.method.toUpperCase(), ...compileTemplate(route.template) };
      const key = segmentCount(route.template);
      const same = this.bySegments.get(key);
      if (same) same.push(compiled);
      else this.bySegments.set(key, [compiled]);
      const bucket = this.buckets.get(key) ?? [];
      bucket.push(compiled);
      bucket.sort((a, b) => Number(b.literal) - Number(a.literal));
      this.buckets.set(key, bucket);
    }
    // Longest first, so that `/v1/api` is tried before `/v1`.
    this.basePaths = [...new Set(basePaths.map((p) => p.replace(/\/+$/, "")).filter((p) => p !== ""))].sort(
      (a, b) => b.length - a.length,
    );
  }

  /** The path with the first matching base path removed. */
  stripBase(path: string): string {
    for (const base of this.basePaths) {
      if (path === base) return "/";
      if (path.startsWith(`${base}/`)) return path.slice(base.length);
    }
    return path;
  }

  /**
   * A recorded path as a report may show it: segments the contract's templates write are kept, every
   * other one (an id, a name, a secret) becomes `{…}`; base paths are stripped first.
   */
  shape(rawPath: string): string {
    const segments = this.stripBase(rawPath).split("/", MAX_SHAPE_SEGMENTS + 1);
    const shown = segments.slice(0, MAX_SHAPE_SEGMENTS).map((s) => (this.literals.has(s) ? s : "{…}"));
    return `${shown.join("/")}${segments.length > MAX_SHAPE_SEGMENTS ? "/…" : ""}`;
  }

  /** Find the route of a method and a path (base path not yet stripped). */
  match(method: string, rawPath: string): RouteMatch<T> {
    const path = this.stripBase(rawPath);
    const upper = method.toUpperCase();
    let allowed: string[] | undefined;
    for (const route of this.buckets.get(segmentCount(path)) ?? []) {
      const m = route.regex.exec(path);
      if (!m) continue;
      if (route.method !== upper) {
        if (allowed) allowed.push(route.method);
        else allowed = [route.method];
        continue;
      }
      // Keyed by the template's names, but null-prototype all the same: a name is never looked up in Object.
      const params: Record<string, string> = Object.create(null);
      for (let i = 0; i < route.names.length; i++) params[route.names[i] as string] = m[i + 1] ?? "";
      return { kind: "found", target: route.target, params };
    }
    if (allowed) return { kind: "method-not-allowed", allowed: [...new Set(allowed)] };
    return { kind: "not-found", hint: this.prefixHint(upper, path) };
  }

  /**
   * Every route whose template matches a path (no base path stripped), in the order `match` tries
   * them, with its parameter values in template order as the path writes them (not decoded).
   */
  routesOf(path: string): { method: string; target: T; values: string[] }[] {
    const found: { method: string; target: T; values: string[] }[] = [];
    for (const route of this.buckets.get(segmentCount(path)) ?? []) {
      const m = route.regex.exec(path);
      if (m)
        found.push({ method: route.method, target: route.target, values: m.slice(1).map((v) => v ?? "") });
    }
    return found;
  }

  /** When the path ends with a known route, the prefix is probably a base path the caller did not give. */
  private prefixHint(method: string, path: string): string | undefined {
    const segments = path.split("/");
    for (let cut = 2; cut < segments.length; cut++) {
      // Only routes of as many segments as the rest can match it.
      const candidates = this.bySegments.get(segments.length - cut);
      if (!candidates) continue;
      const rest = `/${segments.slice(cut).join("/")}`;
      const found = candidates.find((r) => r.method === method && r.regex.test(rest));
      if (found) {
        const prefix = this.shape(segments.slice(0, cut).join("/"));
        const count = `${cut - 1} segment${cut === 2 ? "" : "s"}`;
        return `the path matches ${found.method} ${found.template} after a prefix of ${count} (${prefix}): pass that prefix as --base-path if it is the server's base path`;
      }
    }
    return undefined;
  }
}
