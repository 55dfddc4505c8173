// `probe --record` judges every exchange once live and once as the recording will be read, with the
// one checker of the contract: before, the recorder compiled a second checker of its own.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import * as opener from "../../conformance/run/open-checker.js";
import { type RunningSandbox, launchSandbox } from "../../sandbox/start.js";
import { tempDir } from "./support/cli.js";
import { runMain } from "./support/in-process.js";

// Every importer of the opener (the probe's session, the recorder) gets this counting one.
vi.mock("../../conformance/run/open-checker.js", async (importOriginal) => {
  const original = await importOriginal<typeof opener>();
  return { ...original, openConformanceChecker: vi.fn(original.openConformanceChecker) };
});

const CREDENTIALS = { apiKey: "probe-record-key-3b8e", secret: "probe-record-secret-91d0" };

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await launchSandbox({ port: 0, credentials: CREDENTIALS });
});
afterAll(async () => {
  await sandbox.close();
});

it("probe --record opens the contract's checker once, for the cases and the recording alike", async () => {
  const opened = vi.mocked(opener.openConformanceChecker);
  opened.mockClear();
  const har = join(tempDir(), "once.har");
  const run = await runMain([
    "probe",
    "--base-url",
    sandbox.url,
    "--key",
    CREDENTIALS.apiKey,
    "--secret",
    CREDENTIALS.secret,
    "--phases",
    "examples",
    "--max-requests",
    "3",
    "--record",
    har,
  ]);
  expect(run.stderr).toBe("");
  expect(run.status).toBe(0);
  expect(JSON.parse(readFileSync(har, "utf8")).log.entries.length).toBe(3);
  expect(opened).toHaveBeenCalledTimes(1);
}, 60_000);
