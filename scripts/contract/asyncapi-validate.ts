import { type Diagnostic, DiagnosticSeverity, Parser } from "@asyncapi/parser";
import type { ValidateFunction } from "ajv";
import { AjvCompiler } from "../../src/contract/schema-validator.js";
import type { Json } from "../../src/contract/json.js";

// The parser's rules come from Spectral, whose dependencies include an install-time analytics
// package; nothing runs at parse time, but the switch stays off wherever the parser is loaded.
process.env.SCARF_ANALYTICS = "false";

export interface ParserReport {
  errors: string[];
  warnings: string[];
  infos: string[];
}

const describe = (d: Diagnostic) => `${d.code}: ${d.message} at /${d.path.join("/")}`;

/** Parse a bundled AsyncAPI document with the official parser; its diagnostics by severity. */
export async function parseAsyncApi(document: object): Promise<ParserReport> {
  const { diagnostics } = await new Parser().parse(JSON.stringify(document));
  const pick = (severity: DiagnosticSeverity) =>
    diagnostics.filter((d) => d.severity === severity).map(describe);
  return {
    errors: pick(DiagnosticSeverity.Error),
    warnings: pick(DiagnosticSeverity.Warning),
    infos: [...pick(DiagnosticSeverity.Information), ...pick(DiagnosticSeverity.Hint)],
  };
}

export interface MessageExample {
  /** Where the example sits: `/channels/{channel}/messages/{message}/examples/{i}`. */
  pointer: string;
  channel: string;
  message: string;
  name: string;
  headers?: Record<string, string>;
  payload: unknown;
}

/** Every example of every message of a bundled AsyncAPI document. */
export function messageExamples(document: Json): MessageExample[] {
  const out: MessageExample[] = [];
  for (const [channel, item] of Object.entries<Json>(document.channels ?? {})) {
    for (const [message, msg] of Object.entries<Json>(item.messages ?? {})) {
      for (const [i, example] of (msg.examples ?? []).entries()) {
        out.push({
          pointer: `/channels/${channel}/messages/${message}/examples/${i}`,
          channel,
          message,
          name: example.name ?? String(i),
          headers: example.headers,
          payload: example.payload,
        });
      }
    }
  }
  return out;
}

/** Validate every message example's payload and headers with ajv; one line per failure. */
export function checkMessageExamples(document: Json): string[] {
  const compiler = new AjvCompiler(document);
  const compile = (pointer: string): ValidateFunction => compiler.validator(pointer);
  const failures: string[] = [];
  for (const example of messageExamples(document)) {
    const base = `/channels/${example.channel}/messages/${example.message}`;
    const msg = document.channels[example.channel].messages[example.message];
    const parts: [string, unknown][] = [["payload", example.payload]];
    if (msg.headers) parts.push(["headers", example.headers]);
    for (const [part, value] of parts) {
      const validate = compile(`${base}/${part}`);
      if (!validate(value)) {
        for (const e of validate.errors ?? [])
          failures.push(`${example.pointer} ${part}${e.instancePath || "/"}: ${e.message}`);
      }
    }
  }
  return failures;
}
