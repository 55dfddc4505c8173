// What a recording keeps of a URL and a body: the contract's own words as they are, every other
// recorded value as its stand-in (findings/stand-ins.ts), so that the recording is judged as the
// traffic was. A JSON body keeps its shape, numbers and booleans; a binary body keeps only the
// signature its media type opens with; other bodies keep their media type and size.
import { REDACTED } from "../../src/redact.js";
import { decodeJsonBody, MAX_JSON_DEPTH } from "../../src/server/index.js";
import type { Vocabulary } from "../../src/vocabulary.js";
import { RouteTable } from "../../src/contract/router.js";
import { mediaTypeEssence } from "../findings/redact.js";
import type { StandIns } from "../findings/stand-ins.js";
import { leadingSignature } from "../traffic/media.js";
import { formParts, multipartBoundary } from "../../src/contract/multipart.js";
import type { Json } from "../../src/contract/json.js";

/** A short integer id: numbers are kept in bodies, so they are in paths too (links between them hold). */
const INTEGER_SEGMENT = /^(0|[1-9][0-9]{0,11})$/;

/** What a recording holds in place of a body that is neither JSON nor a known file: not JSON either. */
export const NOT_JSON_TEXT = "(not JSON; the recording keeps none of its text)";

/** Top-level media types a stand-in media type keeps. */
const TOP_TYPES = new Set(["application", "text", "image", "audio", "video", "font", "model", "multipart"]);

/** The values and names of one recording, replaced by stand-ins where the contract does not write them. */
export class RecordingValues {
  private readonly routes: RouteTable<string>;

  /** @param basePaths prefixes kept as they are before a path the contract describes (the service's base paths) */
  constructor(
    document: Json,
    readonly words: Vocabulary,
    readonly standIns: StandIns,
    basePaths: string[] = [],
  ) {
    const templates = Object.keys(document?.paths ?? {});
    const serverPaths: string[] = (Array.isArray(document?.servers) ? document.servers : []).flatMap(
      (s: Json) => {
        try {
          const path = new URL(String(s?.url ?? "")).pathname;
          return path === "/" ? [] : [path];
        } catch {
          return [];
        }
      },
    );
    this.routes = new RouteTable(
      templates.map((template) => ({ template, method: "ANY", target: template })),
      [...serverPaths, ...basePaths],
    );
  }

  /** A string value: a contract word as it is, else its stand-in. */
  value(value: string): string {
    return value === "" || this.words.isValue(value) ? value : this.standIns.text(value);
  }

  /** A member, parameter or part name: a contract name as it is, else its stand-in. */
  name(name: string): string {
    return this.words.isName(name) ? name : this.standIns.text(name);
  }

  /** A file name: its stand-in, with the extension kept (the contract may accept only some). */
  fileName(name: string): string {
    const dot = name.lastIndexOf(".");
    const extension = dot > 0 ? name.slice(dot + 1) : "";
    if (!/^[A-Za-z0-9]{1,8}$/.test(extension)) return this.standIns.text(name);
    return `${this.standIns.text(name.slice(0, dot))}.${extension}`;
  }

  /** A JSON value with every string and member name the contract does not write replaced. */
  json(value: unknown, depth = 0): unknown {
    if (typeof value === "string") return this.value(value);
    if (value === null || typeof value !== "object") return value;
    // decodeJsonBody refused anything deeper, so the recursion is bounded.
    if (depth > MAX_JSON_DEPTH) return REDACTED;
    if (Array.isArray(value)) return value.map((v) => this.json(v, depth + 1));
    const out: Record<string, unknown> = Object.create(null);
    for (const [key, member] of Object.entries(value)) out[this.name(key)] = this.json(member, depth + 1);
    return out;
  }

  /** A media type essence: one the contract or common traffic names, else one of the same kind it does not. */
  mediaType(essence: string): string {
    const named = this.words.mediaType(essence);
    if (named === essence) return essence;
    const [top = "", sub = ""] = essence.split("/", 2);
    const suffix = /\+(json|xml|zip)$/.exec(sub)?.[0] ?? "";
    return `${TOP_TYPES.has(top) ? top : "application"}/x-unlisted${suffix}`;
  }

  /**
   * A path: on a route of the contract, its base path and literal segments as they are and each
   * parameter's value replaced; elsewhere, each segment the contract does not write replaced.
   */
  path(pathname: string): string {
    const found = this.routes.match("ANY", pathname);
    if (found.kind === "found") {
      const rest = this.routes.stripBase(pathname);
      const base = pathname.slice(0, pathname.length - rest.length);
      const filled = found.target.replace(/\{([^}]+)\}/g, (_, name: string) =>
        this.segment(found.params[name] ?? ""),
      );
      return `${base}${filled}`;
    }
    return pathname
      .split("/")
      .map((segment) => (segment === "" || this.words.isSegment(segment) ? segment : this.segment(segment)))
      .join("/");
  }

  /** One segment's value, percent-encoded as recorded: an integer id as it is, any other value's stand-in. */
  private segment(raw: string): string {
    let decoded: string;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      // Not validly percent-encoded: the stand-in keeps the fault (a `%` the check refuses).
      return `%${encodeURIComponent(this.standIns.text(raw))}`;
    }
    return INTEGER_SEGMENT.test(decoded) ? raw : encodeURIComponent(this.value(decoded));
  }

  /** The query as recorded: each name and value the contract does not write replaced. */
  query(query: string): { name: string; value: string }[] {
    return [...new URLSearchParams(query)].map(([name, value]) => ({
      name: this.name(name),
      value: this.value(value),
    }));
  }
}

/** A form part as HAR `postData.params` holds it: its value is not kept, only its size (`_size`). */
export interface HarParam {
  name: string;
  fileName?: string;
  contentType?: string;
  _size: number;
}

/** The parts of a multipart/form-data body with stand-ins for their names, or undefined when it is not readable. */
function harParams(body: Buffer, type: string, values: RecordingValues): HarParam[] | undefined {
  const parts = formParts({ kind: "bytes", bytes: body }, multipartBoundary(type));
  return parts?.map((part) => {
    const essence = part.contentType === undefined ? undefined : mediaTypeEssence(part.contentType);
    return {
      name: values.name(part.name),
      ...(part.fileName !== undefined ? { fileName: values.fileName(part.fileName) } : {}),
      ...(part.contentType !== undefined
        ? { contentType: essence === undefined ? REDACTED : values.mediaType(essence) }
        : {}),
      _size: part.size,
    };
  });
}

/** A message's body for the HAR content: stand-in JSON text or form parts, a binary signature, or only type and size. */
export function harContent(
  headers: [string, string][],
  body: Buffer | undefined,
  size: number,
  values: RecordingValues,
): {
  mimeType: string;
  size: number;
  text?: string;
  encoding?: string;
  params?: HarParam[];
  comment?: string;
} {
  const type = headers.find(([name]) => name.toLowerCase() === "content-type")?.[1];
  const essence = type === undefined ? undefined : mediaTypeEssence(type);
  const mimeType = type === undefined ? "" : essence === undefined ? REDACTED : values.mediaType(essence);
  const base = { mimeType, size };
  if (size > 0 && !body) return { ...base, comment: "body not recorded: over the capture limit" };
  if (!body || body.length === 0) return base;
  if (essence === "multipart/form-data" && type !== undefined) {
    const params = harParams(body, type, values);
    if (params) return { ...base, params };
  }
  const read = decodeJsonBody(body);
  if (read.ok) return { ...base, text: JSON.stringify(values.json(read.value)) };
  // A PDF, a zip, an image: the bytes that say what it is, nothing of what it holds.
  const signature = leadingSignature(body);
  if (signature) return { ...base, text: signature.toString("base64"), encoding: "base64" };
  // Not JSON, and not a file the suite knows: text that is not JSON either, and says so.
  return { ...base, text: NOT_JSON_TEXT, comment: "body not recorded: not JSON" };
}
