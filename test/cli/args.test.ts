// The one command-line parser (src/cli/args.ts): what it reads, what it refuses and how it says so,
// and that no command line, however hostile, makes it throw anything but a one-line UsageError.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseFlags, UsageError } from "../../src/cli/args.js";
import { assertPrototypesUntouched, CANARIES, prototypeSnapshot } from "../support/hostile.js";

const FLAGS = {
  port: { type: "string" },
  json: { type: "boolean", short: "j" },
  "base-path": { type: "string", multiple: true },
} as const;

/** The message of the UsageError `argv` is refused with. */
function refusal(argv: string[]): string {
  try {
    parseFlags(argv, FLAGS);
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
  throw new Error(`${JSON.stringify(argv)} was not refused`);
}

describe("parseFlags", () => {
  it("reads values, switches, repeated flags, positionals and the words after --", () => {
    const parsed = parseFlags(
      ["check", "--port", "4011", "-j", "--base-path=/a", "a.har", "--base-path", "/b", "--", "x", "--port"],
      FLAGS,
      { command: true },
    );
    expect(parsed.help).toBe(false);
    expect({ ...parsed.values }).toEqual({ port: "4011", json: true, "base-path": ["/a", "/b"] });
    expect(parsed.positionals).toEqual(["check", "a.har"]);
    expect(parsed.rest).toEqual(["x", "--port"]);
    expect(Object.getPrototypeOf(parsed.values)).toBe(null);
    expect(parseFlags(["-h"], FLAGS).help).toBe(true);
    expect(parseFlags(["a"], FLAGS, { command: true }).rest).toBeUndefined();
    // Without a command, -- only ends the flags: what follows are positionals (a file named -x).
    const files = parseFlags(["check", "--", "-x.har", "--port"], FLAGS);
    expect(files.positionals).toEqual(["check", "-x.har", "--port"]);
    expect(files.rest).toBeUndefined();
    // A value that starts with a dash is given inline.
    expect(parseFlags(["--port=-1"], FLAGS).values.port).toBe("-1");
  });

  it.each([
    [["--colour"], "unknown flag --colour"],
    [["--colour=red"], "unknown flag --colour"],
    [["-x"], "unknown flag -x"],
    [["--__proto__"], "unknown flag --__proto__"],
    [["--port"], "--port needs a value"],
    [["--port="], "--port needs a value"],
    [["--port", "--json"], "--port needs a value"],
    [["--port", "-j"], "--port needs a value"],
    [["--json=1"], "--json takes no value"],
    [["--port", "1", "--port", "2"], "--port is given more than once"],
    [["--a\nb"], "unknown flag --a?b"],
    [[`--${"y".repeat(60)}`], `unknown flag --${"y".repeat(38)}…`],
  ])("refuses %j: %s", (argv, message) => {
    expect(refusal(argv)).toBe(message);
  });

  it("never shows a flag's value", () => {
    for (const argv of [
      [`--colour=${CANARIES[0]}`],
      [`--json=${CANARIES[0]}`],
      ["--port", "1", `--port=${CANARIES[0]}`],
    ])
      expect(refusal(argv)).not.toContain(CANARIES[0]);
  });

  it("reads any command line or refuses it with one line, leaving the prototypes alone", () => {
    const before = prototypeSnapshot();
    const word = fc.oneof(
      fc.string(),
      fc.string().map((s) => `--${s}`),
      fc.string().map((s) => `-${s}`),
      fc.constantFrom("--", "-", "--port", "--json", "-j", "-h", "--help", "--base-path", "--port="),
      fc.constantFrom("--__proto__", "--constructor=1", "--toString", "--hasOwnProperty", "-jh", "-hj"),
    );
    fc.assert(
      fc.property(fc.array(word, { maxLength: 12 }), (argv) => {
        try {
          const { values } = parseFlags(argv, FLAGS);
          for (const name of Object.keys(values)) expect(Object.keys(FLAGS)).toContain(name);
        } catch (error) {
          expect(error).toBeInstanceOf(UsageError);
          expect((error as Error).message).not.toMatch(/\n/);
        }
        assertPrototypesUntouched(before);
      }),
      { numRuns: 2000 },
    );
  });
});
