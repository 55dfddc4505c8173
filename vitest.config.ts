import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Lint, bundle and the browser spawn tools that take a few seconds on a shared machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ["default", "./test/support/plain-summary-reporter.ts"],
  },
});
