// What the webhook handler's core answers, in a file of its own: the core and its after-handler path
// (acknowledge-after.ts) both speak of it, and neither imports the other for it.

/** An answer: never a value from the request, never a reason beyond the status's own words. */
export interface DeliveryAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The answer, and with "before-handler" the work to start once it is sent (it never rejects). */
export interface CoreResult {
  answer: DeliveryAnswer;
  after?: () => Promise<void>;
}
