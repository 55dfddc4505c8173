// Every product of the sandbox, registered once: its slice of the record store and the --state file,
// and its handlers of the service's operations. Adding a product is its own file and a line in each
// list below.
import type { ProductSlice } from "../state/store.js";
import { BIOMETRIC, biometricHandlers } from "./biometric/biometric.js";
import type { ServiceHandlers } from "./context.js";
import { EDD, eddHandlers } from "./edd.js";
import { FRAUD, fraudHandlers } from "./fraud.js";
import { KYB, kybHandlers } from "./kyb.js";
import { MANUAL, manualHandlers } from "./manual.js";
import { PEP, pepHandlers } from "./pep.js";
import { PROPERTY, propertyHandlers } from "./property.js";
import { WORKFLOW } from "./workflow.js";

/** Every product's slice, in the order the --state file holds them (and restores them). */
export const PRODUCTS: readonly ProductSlice<unknown, unknown>[] = [
  BIOMETRIC,
  MANUAL,
  PEP,
  FRAUD,
  PROPERTY,
  KYB,
  EDD,
  WORKFLOW,
] as unknown as readonly ProductSlice<unknown, unknown>[];

/**
 * The service's operations by operation id. Typed by the contract's own list, so an operation added
 * to the contract fails the build until a product handles it.
 */
export const serviceHandlers: ServiceHandlers = {
  ...manualHandlers,
  ...biometricHandlers,
  ...propertyHandlers,
  ...pepHandlers,
  ...fraudHandlers,
  ...kybHandlers,
  ...eddHandlers,
};
