// Fraud analytics (POST /api/v4/fraud_analytics): its records, its handler, and its slice of the
// --state file.
import type { Json } from "../../src/contract/json.js";
import { isObject } from "../state/checks.js";
import type { ProductSlice } from "../state/store.js";
import type { ServiceHandlers } from "./context.js";
import { example } from "./records.js";

// Request bodies reach here only after the contract's schema accepted them.

/** POST /api/v4/fraud_analytics: the indicators of the contract's example about the person as sent. */
export function fraudAnalytic(id: number, request: Json): Json {
  const template = example("CreateFraudAnalyticResponse");
  const a = request.address_payload ?? {};
  const address = [a.address_line_1, a.address_line_2, a.city, a.state, a.postcode]
    .filter(Boolean)
    .join(", ");
  return {
    id,
    fullname: [request.firstname, request.lastname].filter(Boolean).join(" ") || null,
    ip_address: request.ip_address ?? null,
    contact_phone: request.contact_phone,
    email: request.email,
    address: address || null,
    errors: null,
    results: template.results,
  };
}

/** Fraud analytics, by id; the state file holds [id, record] pairs. */
export const FRAUD: ProductSlice<number, Json> = {
  name: "fraud",
  saved: { form: "entries" },
  restorable: isObject,
};

export const fraudHandlers = {
  createFraudAnalytic: ({ sandbox, value, store }) => {
    const id = sandbox.nextId("fraud");
    const record = fraudAnalytic(id, value);
    store.put(FRAUD, id, record);
    return { status: 200, json: record };
  },
} satisfies Partial<ServiceHandlers>;
