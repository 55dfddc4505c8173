// Every command line of the package behaves the same way (one parser, src/cli/args.ts): --help
// prints the verb's usage on stdout and exits 0; an unknown or malformed flag exits 2 with one line
// naming it, a blank line and the verb's usage on stderr, and nothing on stdout.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { CHECK_FLAGS } from "../../conformance/cli.js";
import { FLAGS as PROBE_FLAGS } from "../../conformance/probe/probe-cli.js";
import { FLAGS as PROXY_FLAGS } from "../../conformance/proxy/proxy-cli.js";
import { FLAGS as RECEIVER_FLAGS } from "../../conformance/receiver-check/receiver-cli.js";
import { FLAGS as COVERAGE_FLAGS } from "../../conformance/coverage/coverage-cli.js";
import { FLAGS as SANDBOX_FLAGS } from "../../sandbox/cli-args.js";
import { TRIGGER_FLAGS } from "../../sandbox/control/trigger-cli.js";
import { fromRoot } from "../../scripts/lib/paths.js";
import { tempDir, writeNdjson } from "../conformance/support/cli.js";
import { example } from "../conformance/support/exchanges.js";
import { runMainOrBinary } from "../conformance/support/in-process.js";
import { cliLaunch } from "../support/cli-command.js";
import { CANARIES, containsCanary } from "../support/hostile.js";

interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

/** `idv-sandbox` (test/support/cli-command.ts), with none of the credentials it would read from this environment. */
function sandbox(args: string[]): Run {
  const env = { ...process.env };
  for (const name of ["IDV_API_KEY", "IDV_API_SECRET", "PORT"]) delete env[name];
  const cli = cliLaunch("idv-sandbox", args, env);
  const run = spawnSync(cli.command, cli.args, {
    cwd: fromRoot(),
    env: cli.env,
    encoding: "utf8",
    timeout: 20_000,
  });
  return { status: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
}

/** The flags each verb's parser takes. */
const FLAGS_OF: Record<string, object> = {
  check: CHECK_FLAGS,
  webhooks: CHECK_FLAGS,
  proxy: PROXY_FLAGS,
  probe: PROBE_FLAGS,
  receiver: RECEIVER_FLAGS,
  coverage: COVERAGE_FLAGS,
};

/** Each program and verb: how to run it, how its usage begins, and the flags it takes. */
const PROGRAMS: [name: string, run: (args: string[]) => Promise<Run> | Run, usage: string, flags: object][] =
  [
    ...["check", "webhooks", "proxy", "probe", "receiver", "coverage"].map(
      (verb) =>
        [
          `idv-conformance ${verb}`,
          (args: string[]) => runMainOrBinary([verb, ...args]),
          `Usage: idv-conformance ${verb} `,
          FLAGS_OF[verb]!,
        ] as [string, (args: string[]) => Promise<Run>, string, object],
    ),
    ["idv-sandbox", sandbox, "Usage: idv-sandbox ", SANDBOX_FLAGS],
    [
      "idv-sandbox trigger",
      (args: string[]) => sandbox(["trigger", ...args]),
      "Usage: idv-sandbox trigger ",
      TRIGGER_FLAGS,
    ],
  ];

/** The flags every program is refused the same way, and the line that names each. */
const REFUSED: [args: string[], line: RegExp][] = [
  [["--colour", "red"], /: unknown flag --colour$/],
  [["-q"], /: unknown flag -q$/],
  [[`--colour=${CANARIES[0]}`], /: unknown flag --colour$/],
  [[`--${"x".repeat(100)}`], /: unknown flag --x{38}…$/],
  [["--help=yes"], /: --help takes no value$/],
  [["--port"], /: (--port needs a value|unknown flag --port)$/],
  [["--host", "--json"], /: (--host needs a value|unknown flag --host)$/],
];

describe.each(PROGRAMS)("%s", (name, run, usage, flags) => {
  it.each([["--help"], ["-h"]])(
    "%s prints its usage, naming every flag it takes, and exits 0",
    async (flag) => {
      const result = await run([flag]);
      expect(result.status).toBe(0);
      expect(result.stdout.startsWith(usage)).toBe(true);
      expect(result.stderr).toBe("");
      expect(Object.keys(flags).length).toBeGreaterThanOrEqual(3);
      for (const name of Object.keys(flags)) expect(result.stdout).toMatch(new RegExp(`--${name}\\b`));
    },
  );

  it.each(REFUSED)("refuses %j: exit 2, one line naming it, then the usage", async (args, line) => {
    const result = await run(args);
    expect(result.status).toBe(2);
    const [first, blank, ...rest] = result.stderr.split("\n");
    expect(first).toMatch(new RegExp(`^${name.split(" ")[0]}: `));
    expect(first).toMatch(line);
    expect(blank).toBe("");
    expect(rest.join("\n").startsWith(usage)).toBe(true);
    expect(result.stdout).toBe("");
    // A flag's name is shown (cut when long), never its value.
    expect(containsCanary(result.stderr)).toBe(false);
  });
});

describe("idv-conformance without a verb", () => {
  it("--help lists the verbs and exits 0", async () => {
    const result = await runMainOrBinary(["--help"]);
    expect(result.status).toBe(0);
    for (const verb of ["check", "webhooks", "proxy", "probe", "receiver", "coverage"])
      expect(result.stdout).toMatch(new RegExp(`^  ${verb} `, "m"));
  });

  it.each([
    [[], "no command given"],
    [["verify"], "unknown command verify"],
    [["--format", "json", "check", "x.har"], "the command comes first: idv-conformance COMMAND --format"],
  ])("refuses %j with exit 2, one line and the usage", async (args, line) => {
    const result = await runMainOrBinary(args);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(
      new RegExp(`^idv-conformance: ${line}\\n\\nUsage: idv-conformance COMMAND`),
    );
  });
});

describe("every reporting verb reads --format and --out alike", () => {
  it.each([
    ["check", "text, json, junit, sarif, github"],
    ["webhooks", "text, json, junit, sarif, github"],
    ["proxy", "text, json, junit, sarif, github"],
    ["probe", "text, json, junit, sarif, github"],
    ["receiver", "text, json, junit, sarif, github"],
  ])("%s --format xml", async (verb, formats) => {
    const result = await runMainOrBinary([verb, "--format", "xml"]);
    expect(result.status).toBe(2);
    expect(result.stderr.split("\n")[0]).toBe(`idv-conformance: --format must be one of ${formats}`);
  });

  it.each(["check", "webhooks", "proxy", "probe", "receiver"])("%s --out without a file", async (verb) => {
    const result = await runMainOrBinary([verb, "--out"]);
    expect(result.status).toBe(2);
    expect(result.stderr.split("\n")[0]).toBe("idv-conformance: --out needs a value");
  });
});

describe("-- ends the flags", () => {
  it("check -- -odd.ndjson: a file whose name starts with a dash", () => {
    const dir = tempDir();
    writeNdjson(dir, "-odd.ndjson", [example("getEddCase")]);
    // Run where the file is, so that its name is the argument.
    const cli = cliLaunch("idv-conformance", ["check", "--", "-odd.ndjson"]);
    const run = spawnSync(cli.command, cli.args, {
      cwd: dir,
      env: cli.env,
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/1 checked: 1 passed/);
  });

  it.each(["probe", "receiver"])("%s refuses words after -- it has no use for", async (verb) => {
    const result = await runMainOrBinary([verb, "--", "a", "b"]);
    expect(result.status).toBe(2);
  });
});

describe("a flag that needs the environment names what it needs, never a value", () => {
  it.each([
    [
      ["proxy", "--upstream", "http://127.0.0.1:9", "--sign"],
      { IDV_API_KEY: CANARIES[0] },
      "idv-conformance: --sign needs IDV_API_KEY and IDV_API_SECRET in the environment",
    ],
  ])("%j with %j", async (args, env, line) => {
    const saved = { IDV_API_KEY: process.env.IDV_API_KEY, IDV_API_SECRET: process.env.IDV_API_SECRET };
    delete process.env.IDV_API_SECRET;
    Object.assign(process.env, env);
    try {
      const result = await runMainOrBinary(args);
      expect(result.status).toBe(2);
      expect(result.stderr.split("\n")[0]).toBe(line);
      expect(result.stdout).toBe("");
      expect(containsCanary(result.stderr)).toBe(false);
    } finally {
      for (const [name, value] of Object.entries(saved))
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
    }
  });
});
