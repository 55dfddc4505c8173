import { createHash } from "node:crypto";
import { generatedNotice } from "../lib/generated-header.js";

/** SHA-256 of a text, hex. */
export const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

export interface ManifestInput {
  source: string;
  sourceText: string;
  command: string;
  generator: string;
  tools: Record<string, string>;
  files: Record<string, string>;
}

/** The manifest: which contract (by hash) and which generator versions produced which files. */
export function renderManifest(input: ManifestInput): string {
  const manifest = {
    "x-generated": generatedNotice(input.source, input.command),
    contract: { file: input.source, sha256: sha256(input.sourceText) },
    generator: input.generator,
    tools: input.tools,
    files: Object.fromEntries(
      Object.entries(input.files).map(([file, text]) => [file, { sha256: sha256(text) }]),
    ),
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}
