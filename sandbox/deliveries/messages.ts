// What the API's thread and the delivery thread say to each other: batches, one message per turn of
// either's event loop, so that a hundred deliveries cost one message, not a hundred.
import type { PostOutcome } from "./post.js";

/** One POST for the delivery thread to make, on the connections kept for `receiver`. */
export interface PostOrder {
  id: number;
  url: string;
  headers: Record<string, string>;
  /** Its body: an index into the batch's `bodies`. */
  body: number;
  timeoutMs: number;
  receiver: string;
}

/**
 * To the delivery thread: POSTs to make, with their bodies (each once: one event goes to every
 * receiver with the same body), POSTs to abort, receivers whose connections to close.
 */
export interface ToSender {
  bodies: string[];
  posts: PostOrder[];
  aborts: number[];
  retire: string[];
}

/** From the delivery thread: how each POST ended. */
export type FromSender = { id: number; outcome: PostOutcome }[];
