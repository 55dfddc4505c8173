// One linter for all TypeScript: ESLint with typescript-eslint's recommended rules; Prettier formats.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

// The floors of the tree: src/ is the ground floor and imports none of the folders built on it;
// mock/, sandbox/ and conformance/ stand side by side on src/ and generated/ and import neither one
// another nor scripts/ or bench/. Type-only imports, re-exports and import() count too: each is an
// arrow upward all the same.
const FLOORS = [
  { folder: "src", above: ["mock", "sandbox", "conformance", "scripts", "bench"] },
  { folder: "mock", above: ["sandbox", "conformance", "scripts", "bench"] },
  { folder: "sandbox", above: ["mock", "conformance", "scripts", "bench"] },
  { folder: "conformance", above: ["mock", "sandbox", "scripts", "bench"] },
];

/** A floor's rules: no relative import that climbs into one of the folders it may not import. */
function floor({ folder, above }) {
  const folders = above.join("|");
  const message = `${folder}/ may not import from ${above.map((f) => `${f}/`).join(", ")}: see the floors in eslint.config.js`;
  // esquery ends a regex at its first slash, so the path's slashes are written \x2F there.
  const climbs = `/^(\\.\\.\\x2F)+(${folders})(\\x2F|$)/`;
  return {
    files: [`${folder}/**/*.{ts,mts,js,mjs}`],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ regex: `^(\\.\\./)+(${folders})(/|$)`, message }] }],
      "no-restricted-syntax": [
        "error",
        { selector: `ImportExpression[source.value=${climbs}]`, message },
        { selector: `TSImportType[argument.literal.value=${climbs}]`, message },
      ],
    },
  };
}

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
  ...FLOORS.map(floor),
);
