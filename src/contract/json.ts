// A JSON document read structurally: the contract walks, the checks and the sandbox all read bundled
// documents whose shape the schemas, not TypeScript, describe.
export type Json = any;
