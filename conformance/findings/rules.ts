// The checks as rules: a stable id (the check's own name), a title and help, for the reports that list
// what they apply (SARIF's tool.driver.rules, GitHub annotations' titles).
import type { CheckName } from "./findings.js";

/** What a check asserts, in words for the reports that show rules. */
export interface CheckRule {
  /** A short title (an annotation's title, a rule's short description). */
  title: string;
  /** One sentence: what the check asserts. */
  description: string;
  /** What to do when it fails. */
  help: string;
  /** The level of its findings unless a run makes them errors (`--warnings-as-errors`). */
  level: "error" | "warning";
  /**
   * What it judges: any entry, an HTTP exchange (`check`), a webhook delivery (`webhooks`), or a
   * recording itself (a withheld value).
   */
  judges: "entry" | "exchange" | "delivery" | "recording";
}

/** Every check, by name; a new CheckName fails to compile until it is described here. */
export const CHECK_RULES: Readonly<Record<CheckName, CheckRule>> = {
  entry_readable: {
    title: "Entry readable",
    description: "Each recorded exchange or delivery can be read: a method, a URL, headers and bodies.",
    help: "Re-record the entry, or see the message for the part that cannot be read.",
    level: "error",
    judges: "entry",
  },
  route_known: {
    title: "Route known",
    description: "The request's method and path match an operation of the contract.",
    help: "Call a documented operation, check --base-path, or document the route in the contract.",
    level: "error",
    judges: "exchange",
  },
  request_content_type: {
    title: "Request media type",
    description: "The request body is sent with a media type the operation accepts.",
    help: "Send the body with a Content-Type listed under the operation's requestBody.content.",
    level: "error",
    judges: "exchange",
  },
  request_body_schema: {
    title: "Request body schema",
    description: "The request body is valid against the operation's request schema.",
    help: "Fix the client so that the member at the pointer meets the schema the contract gives.",
    level: "error",
    judges: "exchange",
  },
  request_parameters: {
    title: "Request parameters",
    description:
      "The path, query and header parameters are present when required and valid against their schemas.",
    help: "Send every required parameter, in the form and with the values the contract gives.",
    level: "error",
    judges: "exchange",
  },
  auth_headers_present: {
    title: "Authentication headers",
    description: "The request carries the credentials of a security scheme the operation accepts.",
    help: "Send the headers of one of the operation's security requirements.",
    level: "error",
    judges: "exchange",
  },
  status_code_documented: {
    title: "Status code documented",
    description: "The response status is one the operation documents.",
    help: "Answer with a documented status, or document the status in the operation's responses.",
    level: "error",
    judges: "exchange",
  },
  response_content_type: {
    title: "Response media type",
    description: "The response body is sent with a media type the response documents.",
    help: "Answer with a Content-Type listed under the response's content.",
    level: "error",
    judges: "exchange",
  },
  response_body_schema: {
    title: "Response body schema",
    description: "The response body is valid against the documented response schema.",
    help: "Fix the server so that the member at the pointer meets the schema the contract gives.",
    level: "error",
    judges: "exchange",
  },
  response_headers: {
    title: "Response headers",
    description:
      "The response carries the headers the response documents as required, valid against their schemas.",
    help: "Send every required response header with a value its schema allows.",
    level: "error",
    judges: "exchange",
  },
  error_shape: {
    title: "Error shape",
    description: "An error response has the contract's error shape.",
    help: "Answer errors with the error body the contract gives for that status.",
    level: "error",
    judges: "exchange",
  },
  channel_known: {
    title: "Channel known",
    description: "A webhook delivery is a POST of a message the AsyncAPI contract describes.",
    help: "Deliver only the contract's events, as POST requests carrying the event's name.",
    level: "error",
    judges: "delivery",
  },
  payload_schema: {
    title: "Payload schema",
    description: "A webhook delivery's body is valid JSON against its message's payload schema.",
    help: "Fix the sender so that the member at the pointer meets the message's payload schema.",
    level: "error",
    judges: "delivery",
  },
  required_headers: {
    title: "Delivery headers",
    description:
      "A webhook delivery carries the headers its message requires, with the contract's media type.",
    help: "Send every header the message requires, and its contentType.",
    level: "error",
    judges: "delivery",
  },
  value_withheld: {
    title: "Value withheld",
    description: "The recording withheld a value; the findings there are those the live check made.",
    help: "Nothing to fix in the traffic: record with stand-ins the checks can judge to check it again.",
    level: "warning",
    judges: "recording",
  },
};

/** The checks in a stable order (the order above): a rule's index in a report. */
export const CHECK_NAMES = Object.keys(CHECK_RULES) as CheckName[];
