// `proxy --upstream` takes its URL through the one intake of URL flags (run/url-intake.ts): each
// refusal names the flag and says what is wrong, exit 2, and never echoes the value.
import { describe, expect, it } from "vitest";
import { runMain } from "./support/in-process.js";

const SECRET = "s3cr3t-4be2-never-printed";

const BAD: [label: string, value: string, says: string][] = [
  ["not a URL", `not a url ${SECRET}`, "--upstream is not a URL"],
  ["another scheme", `ftp://127.0.0.1/${SECRET}`, "--upstream must be an http or https URL"],
  [
    "user and password",
    `http://user:${SECRET}@127.0.0.1:1/x`,
    "--upstream must not hold a user name or password",
  ],
  ["a user name alone", `http://${SECRET}@127.0.0.1:1/x`, "--upstream must not hold a user name or password"],
  ["a query", `http://127.0.0.1:1/x?key=${SECRET}`, "--upstream must not hold a query"],
  ["a fragment", `http://127.0.0.1:1/x#${SECRET}`, "--upstream must not hold a fragment"],
];

describe("proxy --upstream", () => {
  it.each(BAD)("refuses %s with exit 2, never echoed", async (_label, value, says) => {
    const { status, stdout, stderr } = await runMain(["proxy", "--upstream", value, "--port", "0"]);
    expect(status).toBe(2);
    expect(stderr.startsWith(`idv-conformance: ${says}`)).toBe(true);
    expect(stdout + stderr).not.toContain(SECRET);
  });
});
