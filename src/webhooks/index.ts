// idv-contract/webhooks: turn a raw webhook delivery into a typed, checked event, or receive it in one call.
export {
  createDeduper,
  DEFAULT_MAX_ENTRIES,
  DEFAULT_RETENTION_MS,
  type Deduper,
  type DeduperOptions,
  type DedupeStore,
  deliveryKey,
  DeliveryNotRecordedError,
  MAX_KEY_LENGTH,
  MemoryDedupeStore,
  type MemoryDedupeStoreOptions,
  type NotRecordedReason,
} from "./dedupe.js";
export {
  createWebhookHandler,
  type NodeRequestLike,
  type NodeResponseLike,
  type WebhookHandler,
} from "./handler.js";
export {
  type AcknowledgeMode,
  DEFAULT_HANDLER_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  type WebhookEventName,
  type WebhookFailure,
  type WebhookHandlerOptions,
  type WebhookHandlers,
  type WebhookRefusal,
} from "./handler-options.js";
export type { HeadersLike } from "./headers.js";
export {
  DEFAULT_LEASE_MS,
  DEFAULT_MAX_IN_FLIGHT,
  DEFAULT_REDIS_TIMEOUT_MS,
  type IoRedisLike,
  MAX_PREFIX_LENGTH,
  type NodeRedisLike,
  type RedisClientLike,
  RedisDedupeStore,
  type RedisDedupeStoreOptions,
} from "./redis-dedupe-store.js";
export { MAX_WEBHOOK_DEPTH, parseWebhook, type RawBody } from "./parse-webhook.js";
export {
  checkReceiverAuth,
  type ReceiverAuthFailure,
  type ReceiverAuthResult,
  type ReceiverCredentials,
} from "./receiver-auth.js";
export type * from "./types.js";
