// The contract's schema compiler is shared with the webhook helpers, which sit in src/.
export { AjvCompiler } from "./schema-validator.js";
