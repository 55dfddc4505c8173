// Classifies every change between two versions of the contract for the two sides that depend on
// it: clients of the API (they write requests and read responses) and webhook receivers (they read
// deliveries). A change is breaking for a side when code written against the old contract can
// fail against the new one.
import {
  compareResponseHeaders,
  compareSecurity,
  compareSecuritySchemes,
  compareServers,
} from "./classify-openapi-extras.js";
import { diffSchemas, type Json, resolver, type SchemaChange } from "./schema-diff.js";
import { workflowChanges } from "./classify-workflows.js";
import { vectorChanges } from "./classify-vectors.js";
import type { Audience, ContractChange, ContractVersion } from "./change.js";
import { HTTP_METHODS } from "../lib/http-methods.js";

export type { Audience, ContractChange, ContractVersion } from "./change.js";

type Direction = "read" | "write";

/** Whether a schema change breaks the side that reads (responses, deliveries) or writes (requests). */
function isBreaking(change: SchemaChange, direction: Direction): boolean {
  if (direction === "read") {
    // Responses and deliveries are open to new members by design; a removed one is code that breaks.
    if (change.kind === "member-added" || change.kind === "required-added") return false;
    if (change.kind === "member-removed" || change.kind === "required-removed") return true;
    return change.effect === "widened" || change.effect === "both";
  }
  return change.effect === "narrowed" || change.effect === "both";
}

const code = (text: string) => `\`${text}\``;

class Collector {
  readonly changes: ContractChange[] = [];

  add(audience: Audience, breaking: boolean, where: string, text: string, member?: string): void {
    this.changes.push({
      audience,
      breaking,
      where,
      ...(member ? { member } : {}),
      text: `${where}: ${text}.`,
    });
  }

  /** Every difference of two schemas, worded under `part` (`request body`, `response 200 body`, `header`). */
  schemas(
    audience: Audience,
    direction: Direction,
    where: string,
    part: { whole: string; member: (path: string) => string },
    o: Json,
    n: Json,
    docs: { old: Json; new: Json },
  ): void {
    for (const change of diffSchemas(o, n, resolver(docs.old), resolver(docs.new))) {
      const member = change.member ? part.member(change.member) : undefined;
      this.add(
        audience,
        isBreaking(change, direction),
        where,
        `${member ?? part.whole} ${change.what}`,
        member,
      );
    }
  }
}

function operations(doc: Json, section: "paths" | "webhooks"): Map<string, { op: Json; shared: Json[] }> {
  const out = new Map<string, { op: Json; shared: Json[] }>();
  for (const [path, item] of Object.entries<Json>(doc?.[section] ?? {}))
    for (const method of HTTP_METHODS)
      if (item?.[method])
        out.set(section === "paths" ? `${method.toUpperCase()} ${path}` : `webhook ${code(path)}`, {
          op: item[method],
          shared: item.parameters ?? [],
        });
  return out;
}

function compareParameters(c: Collector, where: string, o: Json, n: Json, docs: { old: Json; new: Json }) {
  const index = (doc: Json, entry: { op: Json; shared: Json[] }) => {
    const resolve = resolver(doc);
    const map = new Map<string, Json>();
    for (const p of [...entry.shared, ...(entry.op.parameters ?? [])]) {
      const param = resolve(p).schema;
      map.set(`${param.in} parameter ${code(param.name)}`, param);
    }
    return map;
  };
  const op = index(docs.old, o);
  const np = index(docs.new, n);
  for (const [name, param] of np) {
    const before = op.get(name);
    if (!before) {
      c.add(
        "client",
        Boolean(param.required),
        where,
        `${name} is new and ${param.required ? "required" : "optional"}`,
        name,
      );
      continue;
    }
    if (param.required && !before.required) c.add("client", true, where, `${name} is now required`, name);
    if (!param.required && before.required)
      c.add("client", false, where, `${name} is no longer required`, name);
    c.schemas(
      "client",
      "write",
      where,
      { whole: name, member: (m) => `${name} member ${code(m)}` },
      before.schema,
      param.schema,
      docs,
    );
  }
  for (const name of op.keys())
    if (!np.has(name))
      c.add(
        "client",
        true,
        where,
        `${name} was removed (a client sending it is now refused or ignored)`,
        name,
      );
}

function compareContent(
  c: Collector,
  audience: Audience,
  direction: Direction,
  where: string,
  part: string,
  o: Json,
  n: Json,
  docs: { old: Json; new: Json },
) {
  const oc: Json = o?.content ?? {};
  const nc: Json = n?.content ?? {};
  for (const media of Object.keys(oc)) {
    if (!Object.hasOwn(nc, media)) {
      c.add(audience, true, where, `${part} is no longer sent as ${code(media)}`);
      continue;
    }
    const member = (m: string) => `${part} member ${code(m)}`;
    c.schemas(
      audience,
      direction,
      where,
      { whole: `the ${part}`, member },
      oc[media].schema ?? {},
      nc[media].schema ?? {},
      docs,
    );
  }
  for (const media of Object.keys(nc))
    if (!Object.hasOwn(oc, media))
      c.add(audience, direction === "read", where, `${part} may now be ${code(media)}`);
}

function compareOpenApi(c: Collector, oldDoc: Json, newDoc: Json) {
  const docs = { old: oldDoc ?? {}, new: newDoc ?? {} };
  for (const section of ["paths", "webhooks"] as const) {
    // For an operation the client calls; for a webhook the receiver reads what the service sends.
    const audience: Audience = section === "paths" ? "client" : "receiver";
    const oldOps = operations(oldDoc, section);
    const newOps = operations(newDoc, section);
    for (const [where, o] of oldOps) {
      const n = newOps.get(where);
      if (!n) {
        c.add(
          audience,
          true,
          where,
          section === "paths" ? "the operation was removed" : "the event was removed",
        );
        continue;
      }
      const resolveOld = resolver(docs.old);
      const resolveNew = resolver(docs.new);
      const ob = resolveOld(o.op.requestBody).schema;
      const nb = resolveNew(n.op.requestBody).schema;
      compareSecurity(c, audience, where, docs, o.op, n.op);
      if (section === "paths") {
        compareParameters(c, where, o, n, docs);
        if (nb.required && !ob.required) c.add("client", true, where, "the request body is now required");
        compareContent(c, "client", "write", where, "request body", ob, nb, docs);
        const or: Json = o.op.responses ?? {};
        const nr: Json = n.op.responses ?? {};
        for (const status of Object.keys(or)) {
          if (!Object.hasOwn(nr, status)) {
            c.add("client", status.startsWith("2"), where, `response ${status} was removed`);
            continue;
          }
          compareResponseHeaders(c, where, status, docs, or[status], nr[status], (part, a, b) =>
            c.schemas("client", "read", where, part, a, b, docs),
          );
          const part = `response ${status} body`;
          compareContent(
            c,
            "client",
            "read",
            where,
            part,
            resolveOld(or[status]).schema,
            resolveNew(nr[status]).schema,
            docs,
          );
        }
        for (const status of Object.keys(nr))
          if (!Object.hasOwn(or, status)) c.add("client", false, where, `response ${status} is new`);
      } else {
        compareContent(c, "receiver", "read", where, "payload", ob, nb, docs);
      }
    }
    for (const where of newOps.keys())
      if (!oldOps.has(where))
        c.add(audience, false, where, section === "paths" ? "the operation is new" : "the event is new");
  }
  compareSecuritySchemes(c, docs);
  compareServers(c, docs);
}

function compareAsyncApi(c: Collector, oldDoc: Json, newDoc: Json) {
  const docs = { old: oldDoc ?? {}, new: newDoc ?? {} };
  const resolveOld = resolver(docs.old);
  const resolveNew = resolver(docs.new);
  const oldChannels: Json = oldDoc?.channels ?? {};
  const newChannels: Json = newDoc?.channels ?? {};
  for (const [channel, oc] of Object.entries<Json>(oldChannels)) {
    const nc = newChannels[channel];
    if (!Object.hasOwn(newChannels, channel)) {
      c.add("receiver", true, `channel ${code(channel)}`, "the channel and its events were removed");
      continue;
    }
    const om: Json = oc.messages ?? {};
    const nm: Json = nc.messages ?? {};
    for (const [name, message] of Object.entries<Json>(om)) {
      const where = `event ${code(name)} of ${code(channel)}`;
      if (!Object.hasOwn(nm, name)) {
        c.add("receiver", true, where, "the event was removed");
        continue;
      }
      const o = resolveOld(message).schema;
      const n = resolveNew(nm[name]).schema;
      c.schemas(
        "receiver",
        "read",
        where,
        { whole: "the payload", member: (m) => `payload member ${code(m)}` },
        o.payload ?? {},
        n.payload ?? {},
        docs,
      );
      const headerChanges: ContractChange[] = [];
      const sub = new Collector();
      sub.schemas(
        "receiver",
        "read",
        where,
        { whole: "the headers", member: (m) => `header ${code(m)}` },
        o.headers ?? {},
        n.headers ?? {},
        docs,
      );
      headerChanges.push(...sub.changes);
      // A header removed and another added in the same message is most likely a rename: say so.
      const removed = headerChanges.filter((h) => h.text.endsWith("was removed."));
      const added = headerChanges.filter((h) => / is new and (required|optional)\.$/.test(h.text));
      if (removed.length === 1 && added.length === 1)
        removed[0]!.text = removed[0]!.text.replace(/\.$/, ` (renamed to ${added[0]!.member}?).`);
      c.changes.push(...headerChanges);
    }
    for (const name of Object.keys(nm))
      if (!Object.hasOwn(om, name))
        c.add("receiver", false, `event ${code(name)} of ${code(channel)}`, "the event is new");
  }
  for (const channel of Object.keys(newChannels))
    if (!Object.hasOwn(oldChannels, channel))
      c.add("receiver", false, `channel ${code(channel)}`, "the channel is new");
}

/** Every change from one version of the contract to the next, each classified for its audience. */
export function classifyChanges(before: ContractVersion, after: ContractVersion): ContractChange[] {
  const c = new Collector();
  compareOpenApi(c, before.openapi, after.openapi);
  compareAsyncApi(c, before.asyncapi, after.asyncapi);
  return [
    ...c.changes,
    ...workflowChanges(before.arazzo, after),
    ...vectorChanges(before.receiverVectors, after.receiverVectors),
  ];
}
