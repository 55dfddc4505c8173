import type { RunningMock } from "../../mock/server.js";
import { startMock } from "../../mock/server.js";

export const V2 = { "svc-api-key": "test-key", "svc-secret": "test-secret" };
export const V4 = {
  "svc-api-key": "test-key",
  "svc-date": "2026-11-22T09:30:00.000Z",
  "svc-signature": "00",
};

/** Credentials for an operation path, by its version. */
export const credentialsFor = (path: string) => (path.startsWith("/api/v2/") ? V2 : V4);

/** Start the mock on a free port. */
export const startTestMock = (): Promise<RunningMock> => startMock({ port: 0 });

/** A concrete path for a template: numbers for integer ids, a transaction id otherwise. */
export const concretePath = (template: string) =>
  template.replace("{transaction_id}", "5f3c9a0e-8d2b-4f61-9c7a-2b1e4d6f8a90").replace("{id}", "1042");
