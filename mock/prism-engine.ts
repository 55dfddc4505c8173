// Prism's library answers every accepted request from the contract's examples.
import { createInstance, getHttpOperationsFromSpec, type IHttpConfig } from "@stoplight/prism-http";

export interface MockResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface Preferences {
  code?: number;
  /** A `code=` that is not a three-digit status (`-1`, `20` digits, empty): asked for, never answerable. */
  invalidCode?: true;
  example?: string;
  dynamic?: boolean;
}

const silent = {
  info() {},
  warn() {},
  error() {},
  debug() {},
  trace() {},
  fatal() {},
  success() {},
  child() {
    return silent;
  },
};

const EXTENSIONS = new Map([
  ["application/pdf", "pdf"],
  ["application/zip", "zip"],
]);

/** Parse a `Prefer: code=404, example=NOT_FOUND, dynamic=false` header. */
export function parsePrefer(header: string | undefined): Preferences {
  const out: Preferences = {};
  for (const part of (header ?? "").split(/[,;]/)) {
    const [key, raw] = part.split("=").map((s) => s.trim());
    const value = raw?.replace(/^"|"$/g, "");
    if (key === "code") {
      if (value !== undefined && /^[1-5]\d\d$/.test(value)) out.code = Number(value);
      else out.invalidCode = true;
    }
    if (key === "example" && value) out.example = value;
    if (key === "dynamic") out.dynamic = value === "true";
  }
  return out;
}

/** A Prism instance over a contract file; `answer` serves one accepted request. */
export async function createPrismEngine(specPath: string) {
  const operations = await getHttpOperationsFromSpec(specPath);
  // The front has checked the request already; Prism only picks and serialises the response.
  const config = {
    mock: { dynamic: false },
    validateRequest: false,
    validateResponse: false,
    checkSecurity: false,
    errors: false,
    upstreamProxy: undefined,
    isProxy: false,
  } as unknown as IHttpConfig;
  // Prism's logger type is pino's; it only needs these methods.
  const prism = createInstance(config, { logger: silent as any });

  return async function answer(req: {
    method: string;
    path: string;
    query: Record<string, string | string[]>;
    headers: Record<string, string>;
    body: unknown;
  }): Promise<MockResponse | { problem: string; status: number }> {
    const prefer = parsePrefer(req.headers.prefer);
    const result = await prism.request(
      // Prism's method type is a string union.
      {
        method: req.method.toLowerCase() as any,
        url: { path: req.path, query: req.query },
        headers: req.headers,
        body: req.body,
      },
      operations,
      {
        ...config,
        mock: { dynamic: prefer.dynamic ?? false, code: prefer.code, exampleKey: prefer.example },
      } as IHttpConfig,
    )();
    if (result._tag === "Left") {
      const error = result.left as Error & { status?: number };
      return { problem: error.message, status: error.status ?? 500 };
    }
    const { output } = result.right;
    // Null-prototype: the names come from the contract through Prism, and are kept as names whatever they are.
    const headers: Record<string, string> = Object.create(null);
    for (const [name, value] of Object.entries(output.headers ?? {}))
      headers[name.toLowerCase()] = String(value);
    const type = headers["content-type"] ?? "";
    const extension = EXTENSIONS.get(type.split(";")[0]?.trim().toLowerCase() ?? "");
    if (extension && headers["content-disposition"]) {
      // The shared header example names a PDF; a zip answer gets a zip name.
      headers["content-disposition"] = headers["content-disposition"].replace(
        /\.(pdf|zip)"/,
        `.${extension}"`,
      );
    }
    const body =
      output.body === undefined
        ? Buffer.alloc(0)
        : typeof output.body === "string" && !/json/i.test(type)
          ? // Binary examples are written with one character per byte.
            Buffer.from(output.body, "latin1")
          : Buffer.from(JSON.stringify(output.body));
    return { status: output.statusCode, headers, body };
  };
}
