// One linter for all TypeScript: ESLint with typescript-eslint's recommended rules; Prettier formats.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", "dist/", "build/", "artifacts/", "generated/", "docs/site/", "**/*.d.ts"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Node 20's globals, for the few plain JavaScript files.
    languageOptions: {
      globals: Object.fromEntries(
        [
          "process",
          "console",
          "Buffer",
          "fetch",
          "Request",
          "Response",
          "Headers",
          "URL",
          "TextDecoder",
          "TextEncoder",
        ].map((name) => [name, "readonly"]),
      ),
    },
    rules: {
      // A parsed JSON document is walked structurally; `any` is named where it is used.
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
);
