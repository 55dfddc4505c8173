import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Lint and bundle spawn redocly, which takes a few seconds on a shared machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
