// The journeys of arazzo/ as pages of the site: one page per workflow, with its sequence diagram
// (client, service, receiver), its steps (the operation, the request, the success criteria, the
// outputs, the events awaited) and a list of the journeys for the landing page.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isArazzoFile } from "../../src/arazzo/documents.js";
import { parseArazzo } from "../arazzo/load-yaml.js";
import type { Json } from "../lib/json-ref.js";
import { escapeHtml, inlineMarkdown, jsonBlock, slug } from "./html.js";
import type { SitePage } from "./layout.js";
import { operationLink } from "./reference-links.js";
import { renderSequence, type SequenceMessage } from "./sequence-diagram.js";
import type { WebhookMessage } from "./webhooks-page.js";

/** One workflow of one Arazzo document, as the site shows it. */
export interface Journey {
  workflowId: string;
  /** The document's path under the repository (`arazzo/pep-checks.arazzo.yaml`). */
  source: string;
  workflow: Json;
  page: SitePage;
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** The page a workflow becomes. */
export const journeyFile = (workflowId: string): string => `journey-${slug(workflowId)}.html`;

/** Every workflow of every `*.arazzo.yaml` in `dir`, by file name, then in the document's order. */
export function readJourneys(dir: string): Journey[] {
  return readdirSync(dir)
    .filter(isArazzoFile)
    .sort()
    .flatMap((name) => {
      const file = parseArazzo(`arazzo/${name}`, readFileSync(join(dir, name), "utf8"));
      return (file.document?.workflows ?? []).map((workflow: Json) => ({
        workflowId: String(workflow.workflowId),
        source: file.path,
        workflow,
        page: {
          file: journeyFile(String(workflow.workflowId)),
          label: String(workflow.workflowId),
          group: "journey",
        },
      }));
    });
}

/** The operation of an operationId: its method, path and link into the reference. */
function findOperation(
  openapi: Json,
  operationId: string,
): { method: string; path: string; href: string } | undefined {
  for (const [path, item] of Object.entries<Json>(openapi?.paths ?? {}))
    for (const method of METHODS)
      if (item?.[method]?.operationId === operationId)
        return { method: method.toUpperCase(), path, href: operationLink(openapi, "paths", path, method) };
  return undefined;
}

/** The event an `x-receive` entry awaits, by its pointer `#/channels/<channel>/messages/<key>`. */
function findEvent(messages: WebhookMessage[], pointer: unknown): WebhookMessage | undefined {
  const m = /^#\/channels\/([^/]+)\/messages\/([^/]+)$/.exec(String(pointer ?? ""));
  return m ? messages.find((e) => e.channelId === m[1] && e.key === m[2]) : undefined;
}

/** The status a step's criteria require (`$statusCode == N`), if one does. */
const statusOf = (step: Json): string | undefined =>
  (step.successCriteria ?? [])
    .map((c: Json) => /^\$statusCode\s*==\s*(\d{3})$/.exec(String(c?.condition ?? "").trim())?.[1])
    .find((s: string | undefined) => s !== undefined);

/** The diagram's arrows: each request and its answer, then each event sent to the receiver. */
function messagesOf(workflow: Json, openapi: Json, events: WebhookMessage[]): SequenceMessage[] {
  return (workflow.steps ?? []).flatMap((step: Json) => {
    const op = findOperation(openapi, String(step.operationId));
    const status = statusOf(step);
    const out: SequenceMessage[] = [
      {
        from: 0,
        to: 1,
        label: op ? `${op.method} ${op.path}` : String(step.operationId),
        note: `${step.stepId}: ${step.operationId}`,
        ...(op ? { href: op.href } : {}),
      },
      {
        from: 1,
        to: 0,
        reply: true,
        label: status ? `${status}` : "answer",
        href: `#step-${slug(step.stepId)}`,
      },
    ];
    for (const entry of step["x-receive"] ?? []) {
      const event = findEvent(events, entry.message);
      out.push({
        from: 1,
        to: 2,
        label: `event: ${event?.name ?? entry.stepId}`,
        note: `${entry.stepId}, correlated by ${String(entry.location ?? "").replace(/^\$message\.payload#\//, "")}`,
        href: event ? `webhooks.html#${event.anchor}` : "webhooks.html",
      });
    }
    return out;
  });
}

const code = (text: unknown): string => `<code>${escapeHtml(text)}</code>`;
const list = (items: string[]): string =>
  items.length ? `<ul>${items.map((i) => `<li>${i}</li>`).join("")}</ul>` : "";

/** What a step sends: its parameters, its body and the values replaced in it. */
function renderRequest(step: Json): string {
  const params = (step.parameters ?? []).map(
    (p: Json) =>
      `<tr><td>${code(p.name)}</td><td>${escapeHtml(p.in ?? "")}</td><td>${code(p.value)}</td></tr>`,
  );
  const body = step.requestBody;
  return [
    params.length
      ? `<table class="journey-params"><thead><tr><th>Parameter</th><th>In</th><th>Value</th></tr></thead><tbody>${params.join("")}</tbody></table>`
      : "",
    body
      ? `<p>Body (${code(body.contentType ?? "")}), one of the operation's examples:</p>${jsonBlock(body.payload)}`
      : "",
    list((body?.replacements ?? []).map((r: Json) => `${code(r.target)} ← ${code(r.value)}`)),
  ].join("");
}

/** The events a step awaits, each linked to the webhooks page. */
function renderEvents(step: Json, events: WebhookMessage[]): string {
  const entries = (step["x-receive"] ?? []).map((entry: Json) => {
    const event = findEvent(events, entry.message);
    const name = event
      ? `<a href="webhooks.html#${event.anchor}">${code(event.name)}</a>`
      : code(entry.message);
    const criteria = (entry.successCriteria ?? []).map((c: Json) => code(c.condition));
    return `${name} (${code(entry.stepId)}): ${escapeHtml(entry.description ?? "")} Correlated by ${code(entry.correlationId)} at ${code(entry.location)}.${criteria.length ? ` It must say ${criteria.join(", ")}.` : ""}`;
  });
  return entries.length ? `<h4>Then awaits</h4>${list(entries)}` : "";
}

/** One step: the operation (linked), the request, the criteria, the outputs, the events, any gap. */
function renderStep(step: Json, openapi: Json, events: WebhookMessage[]): string {
  const op = findOperation(openapi, String(step.operationId));
  const heading = op
    ? `<a href="${escapeHtml(op.href)}">${code(`${op.method} ${op.path}`)}</a> (${code(step.operationId)})`
    : code(step.operationId);
  const outputs = Object.entries<Json>(step.outputs ?? {}).map(([n, v]) => `${code(n)} = ${code(v)}`);
  const goes = [...(step.onSuccess ?? [])].map(
    (a: Json) =>
      `${escapeHtml(a.name ?? a.type)}: ${a.stepId ? `on to ${code(a.stepId)}` : escapeHtml(a.type)} when ${(a.criteria ?? []).map((c: Json) => code(c.condition)).join(", ")}`,
  );
  const gap = step["x-gap"]
    ? `<p class="gap-note">Gap: “${escapeHtml(step["x-gap"].quote)}” ${escapeHtml(step["x-gap"].choice)}</p>`
    : "";
  return `<li id="step-${slug(step.stepId)}"><h3>${code(step.stepId)}: ${heading}</h3>${inlineMarkdown(step.description)}
<h4>Request</h4>${renderRequest(step) || "<p>No parameters and no body.</p>"}
<h4>Success criteria</h4>${list((step.successCriteria ?? []).map((c: Json) => code(c.condition)))}
${outputs.length ? `<h4>Outputs</h4>${list(outputs)}` : ""}${goes.length ? `<h4>Actions</h4>${list(goes)}` : ""}${renderEvents(step, events)}${gap}</li>`;
}

/** A workflow's page content. */
export function renderJourney(journey: Journey, openapi: Json, asyncEvents: WebhookMessage[]): string {
  const { workflow } = journey;
  const diagram = renderSequence(
    ["Client", "Service", "Webhook receiver"],
    messagesOf(workflow, openapi, asyncEvents),
    `Sequence of ${journey.workflowId}`,
  );
  const inputs = Object.keys(workflow.inputs?.properties ?? {});
  const outputs = Object.entries<Json>(workflow.outputs ?? {});
  return `<article class="journey">
<p class="meta">Journey ${code(journey.workflowId)}, from ${code(journey.source)} (Arazzo 1.0.1)</p>
<h1>${escapeHtml(workflow.summary ?? journey.workflowId)}</h1>${inlineMarkdown(workflow.description)}
<figure class="diagram-frame">${diagram}<figcaption>Each request and the status its step requires; each event the service then sends to your receiver. Drawn from the workflow at build time.</figcaption></figure>
<h2 id="inputs">Inputs</h2>${inputs.length ? list(inputs.map(code)) : "<p>None: every request body is one of the contract's examples, and every id comes from an earlier step's outputs.</p>"}
<h2 id="steps">Steps</h2><ol class="journey-steps">${(workflow.steps ?? []).map((s: Json) => renderStep(s, openapi, asyncEvents)).join("\n")}</ol>
<h2 id="outputs">Outputs</h2>${outputs.length ? list(outputs.map(([n, v]) => `${code(n)} = ${code(v)}`)) : "<p>None beyond each step's outputs above.</p>"}
</article>`;
}

/** The landing page's list of journeys, each linked to its page. */
export function renderJourneyList(journeys: Journey[]): string {
  return `<ul class="journeys">${journeys
    .map(
      (j) =>
        `<li><a href="${escapeHtml(j.page.file)}">${code(j.workflowId)}</a>: ${escapeHtml(j.workflow.summary ?? "")}</li>`,
    )
    .join("")}</ul>`;
}
