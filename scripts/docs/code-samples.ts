/**
 * Per-operation code samples, generated from the contract's own examples: a curl command (signed
 * as the client signs, with openssl) and the same call with the typed client. They go into the
 * docs build's copy of the bundle as Redoc `x-codeSamples`; the contract itself is not changed.
 * The tests type-check every TypeScript sample and run every curl sample against the mock.
 */
import { type Json, resolveRef } from "../lib/json-ref.js";
import { HTTP_METHODS } from "../lib/http-methods.js";

/** One operation's samples and the facts they were made from. */
export interface OperationSamples {
  operationId: string;
  method: string;
  path: string;
  curl: string;
  typescript: string;
  /** The file an upload sample sends, which must exist where the sample runs. */
  uploadFile?: { name: string; contentType: string };
  /** The file a download sample writes. */
  downloadFile?: string;
}

/**
 * The `lang` values Redoc (Redocly CLI 2.77) shows: it drops `TypeScript` and any sample with a
 * custom `label`, so the typed client's sample is listed as `Node.js`, where the client runs.
 */
export const SAMPLE_LANGS = { curl: "curl", typescript: "Node.js" } as const;

const MEDIA_BY_EXTENSION = new Map([
  [".pdf", "application/pdf"],
  [".png", "image/png"],
  [".jpg", "image/jpeg"],
  [".jpeg", "image/jpeg"],
  [".txt", "text/plain"],
]);

/** Quote a string for a POSIX shell: single quotes, with each `'` closed, escaped and reopened. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The first example value of a parameter or media type object: `example`, then `examples`. */
function firstExample(document: Json, node: Json): Json {
  if (node?.example !== undefined) return node.example;
  const examples = node?.examples;
  if (examples && typeof examples === "object" && !Array.isArray(examples)) {
    const first = Object.values<Json>(examples)[0];
    if (first !== undefined) return resolveRef(document, first)?.value;
  }
  const schema = resolveRef(document, node?.schema);
  if (Array.isArray(schema?.examples)) return schema.examples[0];
  return schema?.example;
}

/** The parameters of an operation (path-level first, the operation's own win), resolved. */
function parametersOf(document: Json, item: Json, op: Json): Json[] {
  const byKey = new Map<string, Json>();
  for (const raw of [...(item.parameters ?? []), ...(op.parameters ?? [])]) {
    const p = resolveRef(document, raw);
    byKey.set(`${p.in}:${p.name}`, p);
  }
  return [...byKey.values()];
}

/** Whether the operation's security sends a signature (v4) rather than the secret (v2). */
function signs(document: Json, op: Json): boolean {
  const requirements: Json[] = op.security ?? document.security ?? [];
  return requirements.some((r) => Object.keys(r ?? {}).includes("SvcSignature"));
}

/** TypeScript source for a JSON value, indented to sit inside a call. */
function tsValue(value: Json, indent: string): string {
  // Identifier keys unquoted, as TypeScript is written; each line of the JSON starts with a key or a bracket.
  return JSON.stringify(value, null, 2)
    .replace(/^(\s*)"([A-Za-z_$][\w$]*)":/gm, "$1$2:")
    .replace(/\n/g, `\n${indent}`);
}

/** The samples of every operation of the contract's `paths` (webhooks are sent by the service, not called). */
export function operationSamples(document: Json): OperationSamples[] {
  const out: OperationSamples[] = [];
  for (const [path, rawItem] of Object.entries<Json>(document.paths ?? {})) {
    const item = resolveRef(document, rawItem);
    for (const method of HTTP_METHODS) {
      const op = item?.[method];
      if (!op?.operationId) continue;
      out.push(samplesFor(document, path, method, item, op));
    }
  }
  return out;
}

function samplesFor(document: Json, path: string, method: string, item: Json, op: Json): OperationSamples {
  const params = parametersOf(document, item, op);
  const pathValues = new Map<string, Json>();
  let concrete = path;
  for (const p of params.filter((p) => p.in === "path")) {
    const value = firstExample(document, p);
    if (value === undefined) throw new Error(`${op.operationId}: path parameter ${p.name} has no example`);
    pathValues.set(p.name, value);
    concrete = concrete.replace(`{${p.name}}`, encodeURIComponent(String(value)));
  }
  const content = resolveRef(document, op.requestBody)?.content ?? {};
  const [mediaType, media] = Object.entries<Json>(content)[0] ?? [];
  const body = media ? firstExample(document, media) : undefined;
  if (media && body === undefined) throw new Error(`${op.operationId}: the request body has no example`);
  const successes = Object.entries<Json>(op.responses ?? {}).filter(([status]) => status.startsWith("2"));
  const answers = successes.flatMap(([, r]) => Object.keys(resolveRef(document, r)?.content ?? {}));
  const isDownload = answers.length > 0 && answers.every((type) => !/json/i.test(type));
  const isUpload = mediaType === "multipart/form-data";
  const signed = signs(document, op);

  let uploadFile: OperationSamples["uploadFile"];
  if (isUpload) {
    const description = String(
      resolveRef(document, Object.values<Json>(media.examples ?? {})[0])?.description ?? "",
    );
    const named = /\b([\w.-]+\.(?:pdf|png|jpe?g|txt))\b/i.exec(`${JSON.stringify(body)} ${description}`)?.[1];
    const name = named ?? "document.pdf";
    const extension = name.slice(name.lastIndexOf(".")).toLowerCase();
    uploadFile = { name, contentType: MEDIA_BY_EXTENSION.get(extension) ?? "application/octet-stream" };
  }
  const downloadFile = isDownload
    ? `${op.operationId.replace(/[A-Z]/g, (c: string) => `-${c.toLowerCase()}`)}.${answers[0]?.includes("zip") ? "zip" : "pdf"}`
    : undefined;

  const curl = curlSample({ method, concrete, signed, mediaType, body, uploadFile, downloadFile });
  const typescript = clientSample({ method, path, pathValues, body, mediaType, isDownload, uploadFile });
  return {
    operationId: op.operationId,
    method,
    path,
    curl,
    typescript,
    ...(uploadFile ? { uploadFile } : {}),
    ...(downloadFile ? { downloadFile } : {}),
  };
}

function curlSample(o: {
  method: string;
  concrete: string;
  signed: boolean;
  mediaType: string | undefined;
  body: Json;
  uploadFile: OperationSamples["uploadFile"];
  downloadFile: string | undefined;
}): string {
  const lines: string[] = [];
  const headers = ['"Svc-API-Key: $IDV_API_KEY"'];
  let data: string | undefined;
  if (o.uploadFile) {
    // Built by hand so that the signed bytes are exactly the bytes sent.
    lines.push(
      `BOUNDARY=idv-${o.uploadFile.name.replace(/[^\w]/g, "-")}`,
      `{ printf -- '--%s\\r\\nContent-Disposition: form-data; name="file"; filename="%s"\\r\\nContent-Type: %s\\r\\n\\r\\n' "$BOUNDARY" ${shellQuote(o.uploadFile.name)} ${shellQuote(o.uploadFile.contentType)}`,
      `  cat ${shellQuote(o.uploadFile.name)}`,
      `  printf -- '\\r\\n--%s--\\r\\n' "$BOUNDARY"; } > body.bin`,
    );
    headers.push('"Content-Type: multipart/form-data; boundary=$BOUNDARY"');
    data = "--data-binary @body.bin";
  } else if (o.mediaType) {
    lines.push(`BODY=${shellQuote(JSON.stringify(o.body))}`);
    headers.push(`"Content-Type: ${o.mediaType}"`);
    data = '--data "$BODY"';
  }
  if (o.signed) {
    const signed = o.uploadFile
      ? `{ printf '%s' "$SVC_DATE"; cat body.bin; }`
      : o.mediaType
        ? `printf '%s%s' "$SVC_DATE" "$BODY"`
        : `printf '%s' "$SVC_DATE"`;
    lines.unshift(
      "# Svc-Signature: HMAC-SHA256 keyed by the secret over Svc-Date and the exact body, in hex.",
    );
    lines.push(
      "SVC_DATE=$(date -u +%Y-%m-%dT%H:%M:%S.000Z)",
      `SVC_SIGNATURE=$(${signed} | openssl dgst -sha256 -hmac "$IDV_API_SECRET" | sed 's/^.*= //')`,
    );
    headers.push('"Svc-Date: $SVC_DATE"', '"Svc-Signature: $SVC_SIGNATURE"');
  } else {
    headers.push('"Svc-Secret: $IDV_API_SECRET"');
  }
  const args = [
    `curl -X ${o.method.toUpperCase()} "$IDV_BASE_URL${o.concrete}"`,
    ...headers.map((h) => `  -H ${h}`),
    ...(data ? [`  ${data}`] : []),
    ...(o.downloadFile ? [`  --output ${o.downloadFile}`] : []),
  ];
  lines.push(args.join(" \\\n"));
  return `${lines.join("\n")}\n`;
}

function clientSample(o: {
  method: string;
  path: string;
  pathValues: Map<string, Json>;
  body: Json;
  mediaType: string | undefined;
  isDownload: boolean;
  uploadFile: OperationSamples["uploadFile"];
}): string {
  const imports = o.isDownload || o.uploadFile ? ["createClient"] : ["createClient", "unwrap"];
  const head = [
    ...(o.uploadFile ? ['import { readFile } from "node:fs/promises";'] : []),
    ...(o.isDownload ? ['import { writeFile } from "node:fs/promises";'] : []),
    `import { ${imports.join(", ")} } from "idv-contract";`,
    "",
    "const idv = createClient({",
    '  baseUrl: process.env.IDV_BASE_URL ?? "",',
    '  apiKey: process.env.IDV_API_KEY ?? "",',
    '  secret: process.env.IDV_API_SECRET ?? "",',
    "});",
    "",
  ];
  const options: string[] = [];
  if (o.pathValues.size) {
    const values = [...o.pathValues].map(([name, value]) => `${name}: ${JSON.stringify(value)}`).join(", ");
    options.push(`  params: { path: { ${values} } },`);
  }
  if (o.uploadFile) {
    const { name, contentType } = o.uploadFile;
    head.push(
      `const bytes = await readFile(${JSON.stringify(name)});`,
      `const file = new File([bytes], ${JSON.stringify(name)}, { type: ${JSON.stringify(contentType)} });`,
      "",
    );
    options.push("  file,");
  } else if (o.mediaType) {
    options.push(`  body: ${tsValue(o.body, "  ")},`);
  }
  const args = `${JSON.stringify(o.path)}${options.length ? `, {\n${options.join("\n")}\n}` : ""}`;
  let call: string[];
  if (o.isDownload) {
    call = [
      `const file = await idv.download(${JSON.stringify(o.method)}, ${args});`,
      "// { filename, contentType, bytes }: the file name from Content-Disposition.",
      'await writeFile(file.filename ?? "report", file.bytes);',
    ];
  } else if (o.uploadFile) {
    call = [`const result = await idv.upload(${JSON.stringify(o.method)}, ${args});`, "console.log(result);"];
  } else {
    call = [
      `const data = unwrap(await idv.${o.method.toUpperCase()}(${args}));`,
      "// unwrap throws an ApiRequestError when the service refuses.",
      "console.log(data);",
    ];
  }
  return `${[...head, ...call].join("\n")}\n`;
}

/**
 * A copy of the bundle for the reference page: `x-codeSamples` on every operation, and the two
 * text fixes Redoc needs (see docs/decisions/docs.md). The input is not changed.
 */
export function referenceBundle(document: Json): Json {
  const copy: Json = structuredClone(document);
  for (const samples of operationSamples(copy)) {
    const op = resolveRef(copy, copy.paths[samples.path])[samples.method];
    op["x-codeSamples"] = [
      { lang: SAMPLE_LANGS.curl, source: samples.curl },
      { lang: SAMPLE_LANGS.typescript, source: samples.typescript },
    ];
  }
  // Redoc shows a server's description as plain text, so Markdown backticks would show as typed.
  for (const server of Array.isArray(copy.servers) ? copy.servers : []) {
    if (typeof server?.description === "string") server.description = server.description.replace(/`/g, "");
  }
  softBreaksAsSpaces(copy);
  return copy;
}

/**
 * Redoc's search excerpts drop a soft line break ("developer\ndashboard" reads
 * "developerdashboard"; a space before the newline is trimmed by its Markdown renderer). Lines of
 * one paragraph are joined with a space, which Markdown renders the same; a line that starts a block
 * (list item, heading, quote, table, fence) or sits in fenced code keeps its newline.
 */
export function joinSoftBreaks(text: string): string {
  const lines = text.split("\n");
  const out: string[] = [];
  let fenced = false;
  const startsBlock = (line: string): boolean =>
    line.trim() === "" || /^\s*([-*+]\s|\d+[.)]\s|#|>|\||```|~~~)/.test(line) || /^ {4}|^\t/.test(line);
  for (const line of lines) {
    const previous = out.at(-1);
    const joinable =
      previous !== undefined &&
      !fenced &&
      previous.trim() !== "" &&
      !/ {2}$/.test(previous) &&
      !/^\s*(```|~~~)/.test(previous) &&
      !startsBlock(line);
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (joinable) out[out.length - 1] = `${previous.trimEnd()} ${line.trim()}`;
    else out.push(line);
  }
  return out.join("\n");
}

/** Every description of the document with its soft breaks joined. Iterative: no recursion. */
function softBreaksAsSpaces(document: Json): void {
  const stack: Json[] = [document];
  while (stack.length) {
    const node = stack.pop();
    if (!node || typeof node !== "object") continue;
    for (const [key, value] of Object.entries<Json>(node)) {
      if (key === "description" && typeof value === "string") node[key] = joinSoftBreaks(value);
      else if (value && typeof value === "object") stack.push(value);
    }
  }
}
