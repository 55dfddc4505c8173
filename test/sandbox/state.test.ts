// --state FILE: records, receivers, pending deliveries and timers survive a restart; the file is
// written atomically, and a torn or foreign file is refused with a clear message, never emptied.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";
import { launchSandbox } from "../../sandbox/start.js";
import { StateFileError } from "../../sandbox/state/file.js";
import { cliLaunch } from "../support/cli-command.js";
import { startRecorder, startTestSandbox } from "../support/sandbox.js";

const dir = () => mkdtempSync(join(tmpdir(), "sbx-state-"));

describe("--state FILE", () => {
  it("keeps records, receivers, pending deliveries and timers across a restart", async () => {
    const file = join(dir(), "state.json");
    const dead = await startRecorder(() => 500);
    const first = await startTestSandbox({ stateFile: file });
    await first.control.addReceiver({ url: dead.url, auth: { scheme: "bearer", token: "t" } });
    const pep = await first.client.POST("/api/v4/pep_checks", {
      body: { reference: "kept", firstname: "A", lastname: "B", date_of_birth: "14/03/1985" },
    });
    const bio = await first.client.POST("/api/v2/send_text", { body: { reference: "kept-bio" } });
    const id = bio.data?.transaction_id as string;
    await first.control.waitForDelivery((d) => d.attempts.length === 1, { subject: id });
    await first.running.close();

    const second = await startTestSandbox({ stateFile: file });
    try {
      const pdf = await second.client.GET("/api/v4/pdf/pep_checks/{id}", {
        params: { path: { id: pep.data?.id as number } },
        parseAs: "arrayBuffer",
      });
      expect(pdf.response.status).toBe(200);
      expect((await second.control.biometric.get(id)).state).toBe("created");
      const [pending] = await second.control.deliveries({ subject: id, status: "pending" });
      expect(pending?.attempts).toHaveLength(1);
      // The saved retry timer still fires.
      await second.control.advance("PT70S");
      await dead.arrived(2);
      // The saved lifespan timer too.
      await second.control.advance("P7D");
      expect((await second.control.biometric.get(id)).state).toBe("archived");
    } finally {
      await second.running.close();
      await dead.close();
    }
    expect(readdirSync(join(file, "..")).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("retries after a restart a delivery whose attempt was in flight when it stopped", async () => {
    const file = join(dir(), "state.json");
    const stuck = await startRecorder(() => "hang");
    const first = await startTestSandbox({ stateFile: file });
    await first.control.addReceiver({ url: stuck.url });
    const bio = await first.client.POST("/api/v2/send_text", { body: { reference: "in-flight" } });
    await stuck.arrived(1);
    await first.running.close();
    await stuck.close();
    const second = await startTestSandbox({ stateFile: file });
    try {
      // The stopped attempt left no outcome; after the restart the delivery is tried again (the
      // receiver is gone now, so that try fails to connect and waits for its retry).
      const retried = await second.control.waitForDelivery((d) => d.attempts.length === 1, {
        subject: bio.data?.transaction_id as string,
      });
      expect(retried.attempts[0]).toMatchObject({ status: null, error: "connection" });
      expect(retried.status).toBe("pending");
    } finally {
      await second.running.close();
    }
  });

  it("refuses a torn file with a clear message and leaves it as it was", async () => {
    const file = join(dir(), "state.json");
    const running = await startTestSandbox({ stateFile: file });
    await running.client.POST("/api/v2/send_text", { body: { reference: "torn" } });
    await running.running.close();
    const whole = readFileSync(file, "utf8");
    const torn = whole.slice(0, Math.floor(whole.length * 0.6));
    writeFileSync(file, torn);
    const error = await launchSandbox({ port: 0, stateFile: file }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateFileError);
    expect((error as Error).message).toMatch(/torn/);
    expect((error as Error).message).toContain(file);
    expect(readFileSync(file, "utf8")).toBe(torn);
  });

  it("refuses a file that is not a state file", async () => {
    const file = join(dir(), "notes.txt");
    writeFileSync(file, "shopping list\n");
    await expect(launchSandbox({ port: 0, stateFile: file })).rejects.toThrow(/is not a sandbox state file/);
  });

  it("the CLI exits 2 with one line naming the file", () => {
    const file = join(dir(), "state.json");
    writeFileSync(file, '{"format":"idv-sandbox-state","version":1,"sha256":"00"}\n{"clock');
    const cli = cliLaunch("idv-sandbox", ["--port", "0", "--state", file]);
    const run = spawnSync(cli.command, cli.args, {
      encoding: "utf8",
      cwd: fromRoot(),
      env: cli.env,
      timeout: 20_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toContain(file);
    expect(run.stderr).toMatch(/torn or was edited/);
  });
});
