// The command line of idv-sandbox, read by the package's one parser (src/cli/args.ts) as
// idv-conformance's is: its usage, its flags, and the options they give. Apart from sandbox/cli.ts
// so that a test reads the flags without starting a sandbox.
import { asUsage, parseFlags, UsageError } from "../src/cli/args.js";
import { parsePort } from "../src/server/index.js";
import { receiverUrl } from "./deliveries/receivers.js";
import { parseWebhookAuth } from "./start.js";

/** The help of `idv-sandbox`. */
export const USAGE = `Usage: idv-sandbox [options]
       idv-sandbox trigger EVENT [--subject ID] [--set member=value …] [--url SANDBOX]
Serve the stateful sandbox of the identity-verification service; with trigger, make a running one
send a webhook event (idv-sandbox trigger --help).

  --port N              port to listen on (0: a free one; default PORT or 4010)
  --host H              address to listen on (default 127.0.0.1)
  --key K --secret S    the credentials it accepts (default: IDV_API_KEY and IDV_API_SECRET from
                        the environment; without them, generated and printed once)
  --webhook-url URL     register a receiver for biometric and EDD events
  --webhook-auth A      its credentials: bearer:TOKEN or basic:USER:PASS
  --state FILE          keep records, receivers, deliveries and the clock in FILE
  --json                first line: JSON with the url, the control API, the server's pid and
                        generated credentials
  --print-url           first line: the url alone
  -h, --help            print this and exit

The control API is served under /_sandbox. Stop with SIGINT or SIGTERM sent to the pid --json prints
(through npx, the pid of npx's own process is not the server's).`;

/** The flags of `idv-sandbox`, by long name. */
export const FLAGS = {
  port: { type: "string" },
  host: { type: "string" },
  key: { type: "string" },
  secret: { type: "string" },
  "webhook-url": { type: "string" },
  "webhook-auth": { type: "string" },
  state: { type: "string" },
  json: { type: "boolean" },
  "print-url": { type: "boolean" },
} as const;

/** The credentials: the flags, else IDV_API_KEY and IDV_API_SECRET, else none (generated). */
function credentialsOf(key: string | undefined, secret: string | undefined, env: NodeJS.ProcessEnv) {
  if ((key === undefined) !== (secret === undefined)) throw new UsageError("--key and --secret go together");
  if (key !== undefined && secret !== undefined) return { apiKey: key, secret };
  const [apiKey, apiSecret] = [env.IDV_API_KEY || undefined, env.IDV_API_SECRET || undefined];
  if ((apiKey === undefined) !== (apiSecret === undefined))
    throw new UsageError("IDV_API_KEY and IDV_API_SECRET go together: set both, or neither");
  return apiKey && apiSecret ? { apiKey, secret: apiSecret } : undefined;
}

/** --webhook-url read as the control API reads a receiver's url; its refusal names the flag, never the value. */
function webhookUrlOf(text: string): string {
  return asUsage(() => {
    try {
      return receiverUrl(text);
    } catch (error) {
      // The control API's words name its member `url`; here the flag is named, and what to write.
      throw new Error(
        /credentials/.test((error as Error).message)
          ? "--webhook-url must not carry credentials: give them with --webhook-auth"
          : "--webhook-url must be an absolute http or https URL, such as http://127.0.0.1:3000/idv/events",
        { cause: error },
      );
    }
  });
}

/** The options of a command line, or `{ help: true }`; a UsageError naming what is wrong. */
export function parse(argv: string[], env: NodeJS.ProcessEnv) {
  const { help, values, positionals } = parseFlags(argv, FLAGS);
  if (help) return { help: true as const };
  if (positionals.length > 0) throw new UsageError("idv-sandbox takes no arguments, only flags");
  const auth = values["webhook-auth"];
  const webhookUrl = values["webhook-url"];
  if (auth && !webhookUrl) throw new UsageError("--webhook-auth needs --webhook-url");
  if (values.json && values["print-url"]) throw new UsageError("--json and --print-url go apart: pick one");
  const credentials = credentialsOf(values.key, values.secret, env);
  return {
    help: false as const,
    port: asUsage(() => parsePort(values.port ?? env.PORT, 4010, "--port")),
    host: values.host ?? "127.0.0.1",
    ...(credentials ? { credentials } : {}),
    ...(webhookUrl ? { webhookUrl: webhookUrlOf(webhookUrl) } : {}),
    ...(auth ? { webhookAuth: asUsage(() => parseWebhookAuth(auth)) } : {}),
    ...(values.state ? { stateFile: values.state } : {}),
    first: values.json ? ("json" as const) : values["print-url"] ? ("url" as const) : undefined,
    /** Whether the credentials came from IDV_API_KEY and IDV_API_SECRET (said at start, never shown). */
    fromEnvironment: credentials !== undefined && values.key === undefined,
  };
}
