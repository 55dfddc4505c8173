// The checks the active tests add to the suite's own (findings/rules.ts): what `probe` and `receiver`
// expect of an answer beyond the contract. One table: a phase names a check by its key here (the type
// of ActiveFinding.check), so a check a phase adds fails to compile until it is described, and the
// reports that list rules (SARIF's tool.driver.rules, GitHub annotations' titles) read it.
import type { CheckName } from "../findings/findings.js";
import { CHECK_RULES, type CheckRule } from "../findings/rules.js";

/** What an active check asserts, in words for the reports that show rules. */
export interface ActiveCheckRule extends Omit<CheckRule, "judges"> {
  /** The command whose results carry it (where docs/probe.md describes it). */
  test: "probe" | "receiver";
}

const probe = (
  title: string,
  description: string,
  help: string,
  level: "error" | "warning" = "error",
): ActiveCheckRule => ({ title, description, help, level, test: "probe" });

const receiver = (title: string, description: string, help: string): ActiveCheckRule => ({
  title,
  description,
  help,
  level: "error",
  test: "receiver",
});

/** Every active check, by name, in the order the reports list them. */
export const ACTIVE_CHECK_RULES = {
  answered: probe(
    "Answered",
    "Every request the probe sends gets an answer: no timeout, no connection closed without one.",
    "See why the deployment did not answer: is it running, does a proxy drop the request, is it slower than --timeout?",
  ),
  no_server_error: probe(
    "No server error",
    "No request, valid or broken on purpose, is answered with a server error (5xx).",
    "A 5xx is the deployment's own fault: send the reproducer and read the deployment's logs for it.",
  ),
  example_accepted: probe(
    "Example accepted",
    "A creation (an operation without path parameters) accepts the contract's own request example with a 2xx.",
    "Accept the contract's example as the document states it, or correct the example in the contract.",
  ),
  negative_refused: probe(
    "Broken request refused",
    "A request that breaks one rule of the contract is refused with a 4xx the operation documents.",
    "Validate requests as the contract states them and refuse a broken one with its documented 4xx and error shape.",
  ),
  auth_refused: probe(
    "Wrong credentials refused",
    "A request without credentials, or with a wrong key, secret or v4 signature, is refused with 401.",
    "Check the credentials (a v4 signature over the exact body bytes and date) before anything else, and answer 401.",
  ),
  credentials_at_risk: probe(
    "Credentials from a browser refused",
    "Credentials sent from a browser script (an Origin header) are refused with 400 CRED_AT_RISK where the contract lists it.",
    "Refuse a request that carries the API credentials and an Origin header with 400 CRED_AT_RISK.",
  ),
  success_criterion: probe(
    "Workflow criterion holds",
    "Each success criterion of a workflow's step or awaited event (the Arazzo workflows of arazzo/) holds.",
    "The message names the workflow, the step and the condition: the deployment does not follow the journey the document states.",
  ),
  event_received: probe(
    "Awaited event received",
    "An event a workflow step awaits is sent: by the sandbox once deliveries settle, or at --receiver-url within --event-timeout.",
    "Check that the deployment sends its events to the receiver it is configured with, and --receiver-url and --event-timeout.",
  ),
  unknown_id_not_found: probe(
    "Unknown id not found",
    "An id the deployment cannot have is answered 404.",
    "Answer 404 for a record that does not exist, never another record.",
  ),
  generated_accepted: probe(
    "Generated request accepted",
    "A request generated from the operation's schemas, valid against them, gets a documented 2xx.",
    "The seed and the reproducer send the same (shrunk) request again: accept what the contract allows.",
  ),
  generated_refused: probe(
    "Generated broken request refused",
    "A generated request that breaks exactly one rule of the contract gets the documented 4xx in the error shape.",
    "The seed and the reproducer send the same (shrunk) request again: refuse what the contract does not allow.",
  ),
  link_followed: probe(
    "Link followed",
    "A link of the answer just received, followed to the operation it names, finds its record (no 404).",
    "The record a link names must be there for the operation the link leads to: see the reproducer.",
  ),
  link_state: probe(
    "Link's refusal",
    "A link whose refusal the contract states (its x-expect: a second download of an archived report) gets that status and code.",
    "Refuse what the record's state no longer allows, with the status and code the contract gives.",
  ),
  acknowledged: receiver(
    "Delivery acknowledged",
    "Every example delivery of the AsyncAPI contract, and the Test button's body, is acknowledged with 2xx (2xx or 3xx for the Test button).",
    "Answer 2xx to every event the contract describes: the service sends anything else again.",
  ),
  time_to_ack: receiver(
    "Acknowledged quickly",
    "A delivery is acknowledged quickly: over 1 s is a warning, no answer within --timeout a failure (the service sends it again).",
    "Acknowledge first, process afterwards (a queue, a background job).",
  ),
  duplicate_acknowledged: receiver(
    "Duplicate acknowledged",
    "The same delivery sent twice is acknowledged both times: duplicates may arrive.",
    "Acknowledge a duplicate with 2xx, and drop it by its id once acknowledged.",
  ),
  unknown_event_acknowledged: receiver(
    "Unknown event acknowledged",
    "An event type the contract does not have (yet) is acknowledged with 2xx.",
    "Acknowledge and ignore the event types you do not handle: the service adds new ones.",
  ),
  extra_members_acknowledged: receiver(
    "Undescribed members acknowledged",
    "A delivery with members the contract does not list is acknowledged with 2xx.",
    "Do not refuse a payload for a member you do not know: the service adds new ones.",
  ),
  credentials_required: receiver(
    "Credentials required",
    "A delivery without credentials, or with wrong ones, is not acknowledged.",
    "Check the configured Basic or Bearer credentials on every delivery and answer 401 when they are missing or wrong.",
  ),
  workflow_acknowledged: receiver(
    "Workflow delivery acknowledged",
    "A case.completed delivery at the workflow case Webhook URL is acknowledged with 2xx.",
    "Answer 2xx at the workflow URL; its deliveries carry no credentials (its path is the secret).",
  ),
  workflow_unknown_type_acknowledged: receiver(
    "Unknown workflow event acknowledged",
    "A workflow delivery with an X-Workflow-Event-Type the contract does not have is acknowledged with 2xx.",
    "Acknowledge and ignore the workflow event types you do not handle.",
  ),
  malformed_json_refused: receiver(
    "Malformed JSON refused",
    "Malformed JSON is refused with a 4xx and the receiver still answers afterwards; 2xx is a warning, a 5xx or a dropped connection a failure.",
    "Parse the body inside a handler that answers 400 when it cannot, never crash on it.",
  ),
  large_body_survived: receiver(
    "Large body survived",
    "After a 10 MB body (any answer, or a closed connection) the receiver still answers the next delivery.",
    "Bound the body a receiver reads, and refuse a larger one (413) rather than running out of memory.",
  ),
  still_answers: receiver(
    "Still answers",
    "After a hostile delivery the receiver answers the next one.",
    "Keep the receiver up whatever a delivery holds: refuse what it cannot take.",
  ),
} as const satisfies Record<string, ActiveCheckRule>;

/** The name of a check an active test adds. */
export type ActiveCheckName = keyof typeof ACTIVE_CHECK_RULES;

/** A check an active test's finding names: one of the suite's, or one of the active tests' own. */
export type AnyCheckName = CheckName | ActiveCheckName;

/** The active checks in a stable order (the order above). */
export const ACTIVE_CHECK_NAMES = Object.keys(ACTIVE_CHECK_RULES) as ActiveCheckName[];

/** The rule of any check an active report may name; undefined for a name no table has. */
export function ruleOf(check: string): CheckRule | ActiveCheckRule | undefined {
  if (Object.hasOwn(CHECK_RULES, check)) return CHECK_RULES[check as CheckName];
  if (Object.hasOwn(ACTIVE_CHECK_RULES, check)) return ACTIVE_CHECK_RULES[check as ActiveCheckName];
  return undefined;
}
