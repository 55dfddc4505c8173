// Every product of the sandbox, registered once: its slice of the record store and the --state file,
// and its handlers of the service's operations. Adding a product is its own file and a line below.
import type { ProductSlice } from "../state/store.js";
import { BIOMETRIC, biometricHandlers } from "./biometric/biometric.js";
import type { ServiceHandlers, ServiceOperationId } from "./context.js";
import { EDD, eddHandlers } from "./edd.js";
import { FRAUD, fraudHandlers } from "./fraud.js";
import { KYB, kybHandlers } from "./kyb.js";
import { MANUAL, manualHandlers } from "./manual.js";
import { PEP, pepHandlers } from "./pep.js";
import { PROPERTY, propertyHandlers } from "./property.js";
import { WORKFLOW } from "./workflow.js";

/** Every product, one line each: its slice and its handlers, in the order the --state file holds them. */
const ALL = [
  { slice: BIOMETRIC, handlers: biometricHandlers },
  { slice: MANUAL, handlers: manualHandlers },
  { slice: PEP, handlers: pepHandlers },
  { slice: FRAUD, handlers: fraudHandlers },
  { slice: PROPERTY, handlers: propertyHandlers },
  { slice: KYB, handlers: kybHandlers },
  { slice: EDD, handlers: eddHandlers },
  { slice: WORKFLOW, handlers: {} },
] as const;

/** Every product's slice, in the order the --state file holds them (and restores them). */
export const PRODUCTS: readonly ProductSlice<unknown, unknown>[] = ALL.map(
  (product) => product.slice as unknown as ProductSlice<unknown, unknown>,
);

/** The operation ids some product handles. */
type Handled = (typeof ALL)[number]["handlers"] extends infer H
  ? H extends unknown
    ? keyof H
    : never
  : never;

/** The contract's operations no product handles: none. */
type Unhandled = Exclude<ServiceOperationId, Handled>;

// Fails the build, naming them, when an operation of the contract has no product's handler.
const everyOperationHandled: [Unhandled] extends [never] ? true : Unhandled = true;
void everyOperationHandled;

/** The service's operations by operation id, every product's handlers together. */
export const serviceHandlers: ServiceHandlers = Object.assign({}, ...ALL.map((product) => product.handlers));
