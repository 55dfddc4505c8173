// The parts of an OpenAPI operation that are not schemas of bodies or parameters: who may call it
// (security requirements and the schemes they name), the headers of its answers, and the servers.
import type { Audience } from "./change.js";
import { type Json, resolver } from "./schema-diff.js";

const code = (text: string) => `\`${text}\``;

/** How a change is recorded; the collector of classify.ts. */
export interface ChangeSink {
  add(audience: Audience, breaking: boolean, where: string, text: string, member?: string): void;
}

/**
 * An operation's security alternatives, each the sorted names of the schemes it needs together. No
 * requirement (absent or `[]`) is one alternative that needs nothing.
 */
function alternatives(doc: Json, op: Json): string[][] {
  const requirements: Json[] = Array.isArray(op?.security)
    ? op.security
    : Array.isArray(doc?.security)
      ? doc.security
      : [];
  return requirements.length === 0 ? [[]] : requirements.map((r) => Object.keys(r ?? {}).sort());
}

const subset = (a: string[], b: string[]) => a.every((name) => b.includes(name));
const words = (alt: string[]) => (alt.length === 0 ? "no credentials" : alt.map(code).join(" with "));
const list = (alts: string[][]) => alts.map(words).join(" or ");

/**
 * Compare an operation's security requirements. A client sends the credentials of one old
 * alternative: it still works when some new alternative needs no more than those. A receiver
 * checks the credentials of the alternatives it knew: it breaks when the service may now send an
 * alternative that covers none of them.
 */
export function compareSecurity(
  sink: ChangeSink,
  audience: Audience,
  where: string,
  docs: { old: Json; new: Json },
  o: Json,
  n: Json,
): void {
  const before = alternatives(docs.old, o);
  const after = alternatives(docs.new, n);
  const same = (a: string[][], b: string[][]) =>
    a.length === b.length && a.every((x) => b.some((y) => subset(x, y) && subset(y, x)));
  if (same(before, after)) return;
  const breaking =
    audience === "client"
      ? before.some((old) => !after.some((alt) => subset(alt, old)))
      : after.some((alt) => !before.some((old) => subset(old, alt)));
  sink.add(
    audience,
    breaking,
    where,
    `authentication was ${list(before)}, is now ${list(after)}`,
    "security",
  );
}

/** The parts of a security scheme a caller's code depends on. */
function schemeShape(scheme: Json): string {
  const { description: _d, ...rest } = scheme ?? {};
  return JSON.stringify(Object.entries(rest).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** Who uses each scheme: clients (paths) and receivers (webhooks). */
function schemeUsers(doc: Json): Map<string, Set<Audience>> {
  const users = new Map<string, Set<Audience>>();
  for (const [section, audience] of [
    ["paths", "client"],
    ["webhooks", "receiver"],
  ] as const)
    for (const item of Object.values<Json>(doc?.[section] ?? {}))
      for (const op of Object.values<Json>(item ?? {})) {
        if (op === null || typeof op !== "object" || Array.isArray(op)) continue;
        for (const alt of alternatives(doc, op))
          for (const name of alt) {
            const set = users.get(name) ?? new Set<Audience>();
            set.add(audience);
            users.set(name, set);
          }
      }
  return users;
}

/** Compare the security schemes: a removed or redefined scheme breaks whoever uses it. */
export function compareSecuritySchemes(sink: ChangeSink, docs: { old: Json; new: Json }): void {
  const oldSchemes: Json = docs.old?.components?.securitySchemes ?? {};
  const newSchemes: Json = docs.new?.components?.securitySchemes ?? {};
  const users = schemeUsers(docs.old);
  const resolveOld = resolver(docs.old);
  const resolveNew = resolver(docs.new);
  for (const name of Object.keys(oldSchemes)) {
    const where = `security scheme ${code(name)}`;
    const audiences = [...(users.get(name) ?? new Set<Audience>(["client"]))];
    const used = users.has(name);
    if (!Object.hasOwn(newSchemes, name)) {
      for (const audience of audiences) sink.add(audience, used, where, "was removed");
      continue;
    }
    const before = resolveOld(oldSchemes[name]).schema;
    const after = resolveNew(newSchemes[name]).schema;
    if (schemeShape(before) === schemeShape(after)) continue;
    const what =
      before.type === "apiKey" && after.type === "apiKey" && before.in === after.in
        ? `is now the ${after.in} ${code(String(after.name))}, was ${code(String(before.name))}`
        : `changed its definition (type, location, name or scheme)`;
    for (const audience of audiences) sink.add(audience, used, where, what);
  }
  const newUsers = schemeUsers(docs.new);
  for (const name of Object.keys(newSchemes))
    if (!Object.hasOwn(oldSchemes, name))
      for (const audience of newUsers.get(name) ?? ["client" as const])
        sink.add(audience, false, `security scheme ${code(name)}`, "is new");
}

/** A response's headers by lower-cased name, references resolved. */
function responseHeaders(doc: Json, response: Json): Map<string, { name: string; header: Json }> {
  const resolve = resolver(doc);
  const out = new Map<string, { name: string; header: Json }>();
  for (const [name, header] of Object.entries<Json>(resolve(response).schema?.headers ?? {}))
    out.set(name.toLowerCase(), { name, header: resolve(header).schema });
  return out;
}

/** Compare the headers of one response: a removed header breaks a client that reads it. */
export function compareResponseHeaders(
  sink: ChangeSink,
  where: string,
  status: string,
  docs: { old: Json; new: Json },
  o: Json,
  n: Json,
  schemas: (part: { whole: string; member: (m: string) => string }, o: Json, n: Json) => void,
): void {
  const before = responseHeaders(docs.old, o);
  const after = responseHeaders(docs.new, n);
  for (const [key, { name, header }] of before) {
    const member = `response ${status} header ${code(name)}`;
    const now = after.get(key);
    if (!now) {
      sink.add("client", true, where, `${member} was removed`, member);
      continue;
    }
    if (header.required && !now.header.required)
      sink.add("client", true, where, `${member} is no longer always sent`, member);
    schemas(
      { whole: member, member: (m) => `${member} member ${code(m)}` },
      header.schema ?? {},
      now.header.schema ?? {},
    );
  }
  for (const [key, { name }] of after)
    if (!before.has(key)) sink.add("client", false, where, `response ${status} header ${code(name)} is new`);
}

/** Compare the servers: a client configured with a removed server URL can no longer reach it. */
export function compareServers(sink: ChangeSink, docs: { old: Json; new: Json }): void {
  const urls = (doc: Json) =>
    new Set<string>((Array.isArray(doc?.servers) ? doc.servers : []).map((s: Json) => String(s?.url)));
  const before = urls(docs.old);
  const after = urls(docs.new);
  for (const url of before)
    if (!after.has(url)) sink.add("client", true, `server ${code(url)}`, "was removed");
  for (const url of after) if (!before.has(url)) sink.add("client", false, `server ${code(url)}`, "is new");
}
