// idv-contract/sandbox: drive a running sandbox (`npm run sandbox`) from tests through its control API.
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
  type SandboxWorkflowCase,
} from "./control-client.js";
export { BIOMETRIC_MAGIC, biometricJourney, type Journey } from "./magic.js";
