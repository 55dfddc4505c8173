// The deliveries the service sends, from the AsyncAPI contract's message examples.
import bundled from "../../generated/asyncapi.json" with { type: "json" };
import type { Json } from "../../src/contract/json.js";

/** A delivery: the channel it belongs to, the event it names, its headers and its body. */
export interface ExampleDelivery {
  channel: string;
  /** The message's name (`created`, `test`, `case.completed`). */
  event: string;
  /** The example's name in the contract. */
  example: string;
  headers: Record<string, string>;
  payload: Json;
}

/** Every example of every message of every channel. */
export function exampleDeliveries(document: Json = bundled): ExampleDelivery[] {
  const out: ExampleDelivery[] = [];
  for (const [channel, spec] of Object.entries<Json>(document.channels ?? {})) {
    for (const message of Object.values<Json>(spec?.messages ?? {})) {
      for (const example of message?.examples ?? []) {
        const headers: Record<string, string> = { "Content-Type": "application/json" };
        for (const [name, value] of Object.entries<Json>(example.headers ?? {}))
          headers[name] = String(value);
        out.push({
          channel,
          event: String(message.name ?? ""),
          example: String(example.name ?? "example"),
          headers,
          payload: example.payload,
        });
      }
    }
  }
  return out;
}

/** Whether a channel's deliveries go to the workflow case Webhook URL (no credentials). */
export const isWorkflowChannel = (channel: string): boolean => channel === "workflowCase";

/** The event names of the biometric and EDD channels (what `event` may say today). */
export function knownEvents(document: Json = bundled): Set<string> {
  return new Set(exampleDeliveries(document).map((d) => d.event));
}
