// The CLI run in this process (its exported main), with its output captured: hundreds of runs in the
// time a handful of child processes take.
import { Writable } from "node:stream";
import { type CliIo, main } from "../../../conformance/cli.js";
import type { Exchange, RecordedBody } from "../../../conformance/traffic/exchange.js";
import { runCliProcess, TEST_BINARIES } from "../../support/cli-command.js";
import type { CliResult } from "./cli.js";

/** A stream that keeps what is written to it. */
export class Capture extends Writable {
  text = "";
  isTTY = false;
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: (error?: Error | null) => void) {
    this.text += chunk.toString();
    done();
  }
}

/** Run `idv-conformance` in this process and give its status and output (as a terminal's when `tty`). */
export async function runMain(args: string[], tty = false): Promise<CliResult> {
  const stdout = new Capture();
  const stderr = new Capture();
  stdout.isTTY = tty;
  stderr.isTTY = tty;
  const io: CliIo = { stdout, stderr };
  const status = await main(args, io);
  return { status, stdout: stdout.text, stderr: stderr.text };
}

/**
 * `idv-conformance` in this process, or, by npm run test:binaries (IDV_TEST_BINARIES), the single
 * executable as a process: the tests of a verb's command line that also judge the executables.
 */
export function runMainOrBinary(args: string[]): Promise<CliResult> {
  return TEST_BINARIES ? runCliProcess("idv-conformance", args) : runMain(args);
}

/** An exchange as a HAR 1.2 entry, headers as `{name, value}` lists. */
export function toHarEntry(exchange: Exchange): Record<string, unknown> {
  const content = (b: RecordedBody | undefined) =>
    b === undefined
      ? { size: 0 }
      : b.kind === "bytes"
        ? { size: b.bytes.length, text: b.bytes.toString("base64"), encoding: "base64" }
        : b.kind === "text"
          ? { size: b.text.length, text: b.text }
          : { size: 0 };
  const headers = (h: Record<string, string>) => Object.entries(h).map(([name, value]) => ({ name, value }));
  const { request, response } = exchange;
  const post = content(request.body);
  return {
    request: {
      method: request.method,
      url: `https://idv.example.com${request.path}`,
      headers: headers(request.headers),
      queryString: [],
      ...("text" in post ? { postData: { mimeType: request.headers["content-type"] ?? "", ...post } } : {}),
    },
    response: response
      ? { status: response.status, headers: headers(response.headers), content: content(response.body) }
      : { status: 0, headers: [], content: { size: 0 } },
  };
}

/** A HAR document of entries. */
export const toHar = (entries: unknown[]): string =>
  JSON.stringify({ log: { version: "1.2", creator: { name: "test", version: "1" }, entries } });
