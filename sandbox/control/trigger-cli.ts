// `idv-sandbox trigger EVENT [--subject ID] [--set member=value …] [--url SANDBOX] [--json]`: one
// event of the contract sent by a running sandbox (POST /_sandbox/trigger), read by the package's one
// parser (src/cli/args.ts). Prints what was sent and to how many receivers, never the payload (it
// may hold the record's personal data).
import { asUsage, type CliIo, parseFlags, readCommandLine, UsageError } from "../../src/cli/args.js";
import { createSandboxControl, SandboxControlError, type SandboxTriggerEvent } from "./client.js";
import { receiverUrl } from "../deliveries/receivers.js";
import { parseAssignment } from "./trigger-members.js";
import { TRIGGER_EVENTS } from "./trigger.js";

/** The help of `idv-sandbox trigger`. */
export const TRIGGER_USAGE = `Usage: idv-sandbox trigger EVENT [options]
Make a running sandbox send one webhook event of the contract, delivered as any other event.

EVENT is one of ${TRIGGER_EVENTS.map((e) => e.event).join(", ")}.

  --subject ID          the record it is about: a biometric transaction_id, an EDD case's id or
                        transaction_id, a workflow case's id (default: a record made for it)
  --set member=value    replace or add a member of the payload (repeatable): member is a JSON
                        Pointer (/verification/status) or a dotted path (verification.status);
                        value is JSON when it parses as JSON (7, true, null, "7", {"a":1}), else
                        the text itself. A payload that breaks the event's schema is refused.
  --url SANDBOX         the sandbox's address (default http://127.0.0.1:4010)
  --json                print the answer (without the payload) as JSON
  -h, --help            print this and exit

Exit 0 when sent, 1 when the sandbox refused it or could not be reached, 2 on a usage error.`;

/** The flags of `idv-sandbox trigger`, by long name. */
export const TRIGGER_FLAGS = {
  subject: { type: "string" },
  set: { type: "string", multiple: true },
  url: { type: "string" },
  json: { type: "boolean" },
} as const;

/** Whether a word is an event of the contract (what `trigger` takes). */
const isTriggerEvent = (word: string): word is SandboxTriggerEvent =>
  TRIGGER_EVENTS.some((e) => e.event === word);

/** The request and where to send it, or `{ help: true }`; a UsageError naming what is wrong. */
export function parseTrigger(argv: string[]) {
  const { help, values, positionals } = parseFlags(argv, TRIGGER_FLAGS);
  if (help) return { help: true as const };
  if (positionals.length === 0) throw new UsageError("trigger needs an EVENT");
  if (positionals.length > 1) throw new UsageError("trigger takes one EVENT");
  const event = positionals[0] as string;
  if (!isTriggerEvent(event))
    throw new UsageError(`EVENT must be one of ${TRIGGER_EVENTS.map((e) => e.event).join(", ")}`);
  const set = (values.set ?? []).map((text) => asUsage(() => parseAssignment(text)));
  let url: string;
  try {
    url = receiverUrl(values.url ?? "http://127.0.0.1:4010").replace(/\/$/, "");
  } catch (error) {
    throw new UsageError(`--url: ${(error as Error).message.replace(/^url /, "")}`);
  }
  return {
    help: false as const,
    url,
    event,
    ...(values.subject === undefined ? {} : { subject: values.subject }),
    set,
    json: values.json === true,
  };
}

/** Run `idv-sandbox trigger` with the words after the verb; resolves with the exit status. */
export async function runTrigger(argv: string[], io: CliIo): Promise<number> {
  const args = await readCommandLine("idv-sandbox", TRIGGER_USAGE, io, () => parseTrigger(argv));
  if (typeof args === "number") return args;
  const control = createSandboxControl(args.url);
  try {
    const sent = await control.trigger(args.event, {
      ...(args.subject === undefined ? {} : { subject: args.subject }),
      set: args.set,
    });
    const { payload: _payload, ...shown } = sent;
    if (args.json) io.stdout.write(`${JSON.stringify(shown)}\n`);
    else {
      const made = sent.made ? ` (made for it: ${sent.made.kind.replaceAll("_", " ")} ${sent.made.id})` : "";
      io.stdout.write(
        `Sent ${sent.event} about ${sent.subject}${made} to ${sent.receivers} receiver${sent.receivers === 1 ? "" : "s"}.\n`,
      );
    }
    return 0;
  } catch (error) {
    if (error instanceof SandboxControlError) {
      io.stderr.write(
        `idv-sandbox: the sandbox refused it (${error.status}): ${error.message.replace(/^sandbox control: \d+ \w+: /, "")}\n`,
      );
      return 1;
    }
    io.stderr.write(`idv-sandbox: could not reach the sandbox at ${new URL(args.url).origin}\n`);
    return 1;
  }
}
