// idv-contract/sandbox: start the stateful sandbox from a test setup (startSandbox), or make it in
// this process with no socket (createSandbox), and drive it, or one started by `npx idv-sandbox`,
// through its control API.
export {
  createSandboxControl,
  type CreateReceiverRequest,
  type DeliveryFilter,
  type SandboxBiometricVerification,
  type SandboxClock,
  type SandboxControl,
  SandboxControlError,
  type SandboxDelivery,
  type SandboxReceiver,
  type SandboxReset,
  type SandboxSettled,
  type SandboxTriggered,
  type SandboxTriggerEvent,
  type SandboxTriggerRequest,
  type SandboxWorkflowCase,
} from "./control/client.js";
export {
  createSandbox,
  type CreateSandboxOptions,
  type InProcessSandbox,
  type ReceiverHandler,
  type ReceiverHandlerOptions,
} from "./in-process.js";
export { BIOMETRIC_MAGIC, biometricJourney, type Journey } from "./products/magic.js";
export { type StartedSandbox, startSandbox, type StartSandboxOptions } from "./start-sandbox.js";
export { StateFileError } from "./state/file.js";
export { StateLockError } from "./state/lock.js";
