import { renderGapMarks } from "./gap-marks.js";
import { escapeHtml, inlineMarkdown } from "./html.js";
import { type Json, refName, resolveRef } from "../lib/json-ref.js";
import { HTTP_METHODS } from "../lib/http-methods.js";
import { renderSchemaTable } from "./schema-table.js";

interface Op {
  method: string;
  path: string;
  op: Json;
}

/** Every operation of the contract, with its method and path. */
export function operationsOf(openapi: Json): Op[] {
  return Object.entries<Json>(openapi.paths ?? {}).flatMap(([path, item]) =>
    HTTP_METHODS.filter((m) => item?.[m]).map((method) => ({ method, path, op: item[method] })),
  );
}

/** The authentication schemes as the contract states them: each set of headers and who sends it. */
export function renderAuthentication(openapi: Json): string {
  const sets = new Map<string, Op[]>();
  for (const entry of operationsOf(openapi)) {
    for (const requirement of entry.op.security ?? openapi.security ?? []) {
      const key = Object.keys(requirement).join(" + ");
      sets.set(key, [...(sets.get(key) ?? []), entry]);
    }
  }
  return [...sets]
    .map(([key, ops]) => {
      const prefixes = [...new Set(ops.map((o) => o.path.split("/").slice(0, 3).join("/")))];
      const rows = key
        .split(" + ")
        .map((name) => {
          const scheme = openapi.components?.securitySchemes?.[name] ?? {};
          return `<tr><td><code>${escapeHtml(scheme.name ?? name)}</code></td><td>${escapeHtml(scheme.in ?? scheme.type ?? "")}</td><td>${inlineMarkdown(scheme.description)}${renderGapMarks(scheme)}</td></tr>`;
        })
        .join("");
      return `<article class="auth-scheme">
        <h3>${prefixes.map((p) => `<code>${escapeHtml(p)}/…</code>`).join(", ")}: ${key.split(" + ").length} headers</h3>
        <p>Sent by ${ops.length} operations.</p>
        <table><thead><tr><th>Header</th><th>In</th><th>What it carries</th></tr></thead><tbody>${rows}</tbody></table>
      </article>`;
    })
    .join("\n");
}

interface ErrorUse {
  status: string;
  codes: string[];
  description: string;
  operations: Set<string>;
}

/** The error body shapes: each shared error schema with the status codes and error codes that use it. */
export function renderErrorShapes(openapi: Json): string {
  const shapes = new Map<string, Map<string, ErrorUse>>();
  for (const { method, path, op } of operationsOf(openapi)) {
    for (const [status, raw] of Object.entries<Json>(op.responses ?? {})) {
      if (!/^[45]/.test(status)) continue;
      const response = resolveRef(openapi, raw);
      const schema = response?.content?.["application/json"]?.schema;
      const shape = refName(schema?.allOf?.[0]) ?? refName(schema);
      if (!shape) continue;
      const codes = (schema.allOf ?? [])
        .slice(1)
        .flatMap((part: Json) => Object.values<Json>(part?.properties ?? {}))
        .flatMap((p: Json) => p.enum ?? (p.const !== undefined ? [p.const] : []));
      const byResponse = shapes.get(shape) ?? new Map<string, ErrorUse>();
      const key = `${status} ${refName(raw) ?? codes.join(",")}`;
      const use = byResponse.get(key) ?? {
        status,
        codes,
        description: response.description ?? "",
        operations: new Set(),
      };
      use.operations.add(`${method.toUpperCase()} ${path}`);
      byResponse.set(key, use);
      shapes.set(shape, byResponse);
    }
  }
  return [...shapes]
    .map(([shape, uses]) => {
      const rows = [...uses.values()]
        .sort((a, b) => a.status.localeCompare(b.status))
        .map(
          (use) =>
            `<tr><td>${escapeHtml(use.status)}</td><td>${use.codes.map((c) => `<code>${escapeHtml(c)}</code>`).join(", ")}</td><td>${inlineMarkdown(use.description)}</td><td>${use.operations.size}</td></tr>`,
        )
        .join("");
      return `<article class="error-shape">
        <h3><code>${escapeHtml(shape)}</code></h3>
        ${renderSchemaTable(openapi, { $ref: `#/components/schemas/${shape}` }, "Body")}
        <table><thead><tr><th>HTTP</th><th>Code</th><th>When</th><th>Operations</th></tr></thead><tbody>${rows}</tbody></table>
      </article>`;
    })
    .join("\n");
}
