// The compiler options the generated clients are checked with, as docs/other-tools.md states them.

/** tsconfig compilerOptions for a folder of generated TypeScript: strict, no emit. */
export const GENERATED_CLIENT_OPTIONS = {
  target: "ES2022",
  module: "ESNext",
  moduleResolution: "Bundler",
  // Orval's output does not compile without DOM.Iterable.
  lib: ["ES2022", "DOM", "DOM.Iterable"],
  types: [],
  strict: true,
  noEmit: true,
  skipLibCheck: true,
};
