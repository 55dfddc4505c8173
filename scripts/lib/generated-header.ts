/** The do-not-edit notice every generated file starts with. */
export function generatedNotice(source: string, command: string): string {
  return `Generated from ${source} by \`${command}\`. Do not edit: change the source and regenerate.`;
}

/** The notice as a comment block for YAML, TypeScript or JavaScript. */
export function commentHeader(style: "#" | "//", source: string, command: string): string {
  return `${style} ${generatedNotice(source, command)}\n`;
}
