// The framework blocks of docs/webhooks.md (node:http, Express, Fastify, Next.js, Hono), the
// README's receiver and the package README's webhook block, type-checked against the package's own
// types as an integrator's strict project would. The frameworks are not dependencies of this package: the few parts the
// blocks use are declared below, minimally, with the shapes the frameworks give them.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";

const FRAMEWORKS = `
declare module "express" {
  import type { IncomingMessage, ServerResponse } from "node:http";
  type Handler = (req: IncomingMessage & { body?: unknown }, res: ServerResponse, next: (error?: unknown) => void) => void;
  interface Application {
    post(path: string, ...handlers: Handler[]): Application;
    use(...handlers: Handler[]): Application;
    listen(port: number): unknown;
  }
  interface Express {
    (): Application;
    json(): Handler;
    raw(options?: { type?: string; limit?: string | number }): Handler;
  }
  const express: Express;
  export default express;
}
declare module "fastify" {
  import type { IncomingMessage, ServerResponse } from "node:http";
  interface FastifyRequest { raw: IncomingMessage }
  interface FastifyReply { raw: ServerResponse; hijack(): FastifyReply }
  interface FastifyInstance {
    register(plugin: (scope: FastifyInstance) => Promise<void>): Promise<void>;
    removeAllContentTypeParsers(): void;
    addContentTypeParser(
      type: string,
      parser: (request: FastifyRequest, payload: IncomingMessage, done: (error: Error | null, body?: unknown) => void) => void,
    ): void;
    post(path: string, handler: (request: FastifyRequest, reply: FastifyReply) => unknown): FastifyInstance;
    listen(options: { port: number; host?: string }): Promise<string>;
  }
  export default function Fastify(): FastifyInstance;
}
declare module "hono" {
  interface Context { req: { raw: Request } }
  export class Hono {
    post(path: string, handler: (c: Context) => Response | Promise<Response>): this;
  }
}
`;

// Next.js checks a route's POST export against this shape (a Request and a context in, a Response out).
const NEXT_ROUTE_CHECK = `
import * as route from "./nextjs.js";
const post: (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response> = route.POST;
export { post };
`;

/** The TypeScript block after each `<!-- framework: name -->` marker of a Markdown file. */
function frameworkBlocks(file: string): [string, string][] {
  const text = readFileSync(fromRoot(file), "utf8");
  return [...text.matchAll(/<!-- framework: ([\w-]+) -->\n```ts\n([\s\S]*?)```/g)].map(([, name, code]) => [
    name!,
    code!,
  ]);
}

mkdirSync(fromRoot("node_modules/.cache"), { recursive: true });
const dir = mkdtempSync(fromRoot("node_modules/.cache/handler-docs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Type-check files in a strict project where `idv-contract/webhooks` is the repository's source; tsc's output. */
function typeCheck(files: Record<string, string>): string {
  for (const [name, code] of Object.entries(files)) writeFileSync(join(dir, name), code);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        lib: ["ES2022"], // as the package test's integrator project: web globals from @types/node
        types: ["node"],
        typeRoots: [fromRoot("node_modules/@types")],
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        noEmit: true,
        skipLibCheck: true,
        resolveJsonModule: true,
        paths: { "idv-contract/webhooks": [fromRoot("src/webhooks/index.ts")] },
      },
      files: Object.keys(files),
    }),
  );
  const tsc = spawnSync(process.execPath, [fromRoot("node_modules/typescript/bin/tsc"), "-p", "."], {
    cwd: dir,
    encoding: "utf8",
  });
  return tsc.stdout + tsc.stderr;
}

describe("the framework blocks of docs/webhooks.md", () => {
  const blocks = frameworkBlocks("docs/webhooks.md");

  it("show node:http, Express, Fastify, Next.js and Hono", () => {
    expect(blocks.map(([name]) => name)).toEqual(["node-http", "express", "fastify", "nextjs", "hono"]);
  });

  it("compile against the package's types with the README's receiver, and a wrong event name or member does not", () => {
    const files: Record<string, string> = {
      "frameworks.d.ts": FRAMEWORKS,
      "next-route-check.ts": NEXT_ROUTE_CHECK,
    };
    for (const [name, code] of blocks) files[`${name}.ts`] = code;
    // The README's receiver, as the package test's integrator project compiles it.
    files["receiver.ts"] =
      /<!-- receiver -->\n```ts\n([\s\S]*?)```/.exec(readFileSync(fromRoot("README.md"), "utf8"))?.[1] ?? "";
    const [, nodeHttp] = blocks[0]!;
    files["wrong-event.ts"] = nodeHttp.replace("case_completed(event)", "case_complete(event)");
    files["wrong-member.ts"] = nodeHttp.replace("event.payload.verification;", "event.payload.verdict;");
    const output = typeCheck(files);
    const errors = output.split("\n").filter((line) => line.includes("error TS"));
    expect(
      errors.every((line) => /^wrong-(event|member)\.ts/.test(line)),
      output,
    ).toBe(true);
    expect(errors.some((line) => line.startsWith("wrong-event.ts") && line.includes("case_complete"))).toBe(
      true,
    );
    expect(errors.some((line) => line.startsWith("wrong-member.ts") && line.includes("verdict"))).toBe(true);
  }, 120_000);
});

describe("the package README's webhook block", () => {
  it("uses createWebhookHandler and compiles against the package's types", () => {
    const readme = readFileSync(fromRoot("docs/package/README.md"), "utf8");
    const block = /## Webhooks\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
    expect(block).toContain("createWebhookHandler(");
    expect(typeCheck({ "package-readme.ts": block })).toBe("");
  }, 120_000);
});
