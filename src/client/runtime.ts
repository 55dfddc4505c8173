/** Whether the global scope looks like a browser page or worker (where credentials must never be used). */
export function looksLikeBrowser(scope: object = globalThis): boolean {
  const g = scope as Record<string, unknown>;
  if (typeof g.window === "object" || typeof g.document === "object") return true;
  // Web workers have neither window nor document, but do have importScripts.
  if (typeof g.importScripts === "function") return true;
  // Browsers all announce "Mozilla/5.0"; Node.js, Deno, Bun and edge runtimes name themselves.
  const agent = (g.navigator as { userAgent?: unknown } | undefined)?.userAgent;
  return typeof agent === "string" && agent.startsWith("Mozilla/");
}

/** Refuse to create a client holding credentials in a browser, unless the caller says it is a server. */
export function assertServerRuntime(runtime: "auto" | "server" | undefined): void {
  if (runtime === "server" || !looksLikeBrowser()) return;
  throw new Error(
    "idv-contract: refusing to create a client with credentials in what looks like a browser (CRED_AT_RISK: " +
      'the keys would be rotated); on a server runtime, pass runtime: "server"',
  );
}
