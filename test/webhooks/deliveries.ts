import { webhookChannels } from "../../generated/webhook-events.js";
import { type MessageExample, messageExamples } from "../../scripts/contract/asyncapi-validate.js";
import { type Json, loadAsyncApi } from "../support/contract.js";

/** The committed AsyncAPI bundle. */
export const asyncapi: Json = loadAsyncApi();

export interface Delivery extends Omit<MessageExample, "payload" | "headers"> {
  /** The event name the contract gives this message. */
  event: string;
  payload: Json;
  headers: Record<string, string>;
  body: string;
}

/** Every message example of the contract as a delivery: its headers and its raw body. */
export function exampleDeliveries(): Delivery[] {
  return messageExamples(asyncapi).map((example) => {
    const events = webhookChannels[example.channel as keyof typeof webhookChannels].events as Record<
      string,
      { payload: string }
    >;
    const event = Object.entries(events).find(
      ([, e]) => e.payload === `/channels/${example.channel}/messages/${example.message}/payload`,
    )?.[0];
    if (!event) throw new Error(`${example.pointer}: no event in the generated channel table`);
    return {
      ...example,
      event,
      headers: example.headers ?? { "Content-Type": "application/json" },
      body: JSON.stringify(example.payload),
    };
  });
}

/** A deep copy of the example delivery of one event. */
export function deliveryOf(event: string): Delivery {
  const found = exampleDeliveries().find((d) => d.event === event);
  if (!found) throw new Error(`no example delivery for ${event}`);
  return structuredClone(found);
}

const PERSONAL = new Set([
  "firstname",
  "middle_name",
  "lastname",
  "fullname",
  "name",
  "date_of_birth",
  "phone_number",
  "contact_phone",
  "email",
  "id_number",
  "card_number",
  "full",
  "address_line_1",
  "address",
  "reference",
  "external_id",
]);

/** The personal values a payload holds (names, dates of birth, phones, addresses…). */
export function personalValues(node: Json, key = ""): string[] {
  if (typeof node === "string") return PERSONAL.has(key) && node.length > 0 ? [node] : [];
  if (node === null || typeof node !== "object") return [];
  return Object.entries<Json>(node).flatMap(([k, v]) => personalValues(v, Array.isArray(node) ? key : k));
}
