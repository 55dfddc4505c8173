// The stateful phase: the document's flows, each step found through a link of the contract (never a
// path written here), so a link that names the wrong parameter breaks the flow and says so.
import type { ActiveFinding } from "./active-report.js";
import type { ProbeOperation } from "./contract-operations.js";
import { exampleParams } from "./contract-operations.js";
import type { Expectation, Phase, ProbeCase, Sent } from "./probe-case.js";
import { evaluate } from "./runtime-expression.js";
import { unknownId } from "./safety.js";
import type { ProbeSession } from "./session.js";

/** A link's value longer than this is not followed (no id is this long). */
const MAX_LINK_VALUE = 256;

/** The case a link of a sent request leads to, or undefined when the link or a parameter is missing. */
function follow(
  session: ProbeSession,
  from: Sent,
  linkName: string,
  phase: Phase,
  label: string,
  expect: Expectation,
  byId: Map<string, ProbeOperation>,
): ProbeCase | undefined {
  const status = String(from.answer.status);
  const link = (from.probeCase.op.links.get(status) ?? from.probeCase.op.links.get("200"))?.find(
    (l) => l.name === linkName,
  );
  const target = link && byId.get(link.operationId);
  if (!link || !target) return undefined;
  const params = new Map<string, string>();
  for (const [name, expression] of link.parameters) {
    const value = evaluate(expression, {
      pathParams: from.probeCase.params,
      requestHeaders: from.requestHeaders,
      responseHeaders: from.answer.headers,
      responseBody: from.json,
    });
    if (value === undefined || value.length > MAX_LINK_VALUE) return undefined;
    params.set(name, value);
  }
  return { phase, case: label, op: target, params, ...session.bodyFor(target), credentials: "valid", expect };
}

/** A step: the link to follow from the previous step's answer, and what its answer must be. */
interface Step {
  link: string;
  label: string;
  expect: Expectation;
  /** Follow from this earlier step (its index) rather than the one just before. */
  from?: number;
  /** A further check of the answer. */
  verify?: (sent: Sent) => ActiveFinding[];
}

/** A flow: the operation that starts it (an example body), then steps through links. */
interface Flow {
  name: string;
  start: string;
  steps: Step[];
}

const ok = (check: string): Expectation => ({ kind: "accepted", check });
const refused = (check: string): Expectation => ({ kind: "client-error", check });

/** A product whose PDF archives its record: create, the PDF through `link`, then a second PDF, refused. */
const pdfTwice = (product: string, start: string, link: string): Flow => ({
  name: `${product}: create, PDF, a second PDF once archived`,
  start,
  steps: [
    { link, label: "the PDF", expect: ok("link_followed") },
    { link: "downloadAgain", label: "a second PDF, once archived", expect: refused("archived_refused") },
  ],
});

/** The flows of the document (docs/interface-document.md, the lifecycle tables). */
const FLOWS: Flow[] = [
  {
    name: "manual verification: create, export the PDF (archives it), export again",
    start: "createManualVerification",
    steps: [
      { link: "exportAndArchive", label: "export the PDF", expect: ok("link_followed") },
      { link: "exportAgain", label: "a second export, once archived", expect: refused("archived_refused") },
    ],
  },
  {
    name: "biometric verification: create, resend, the original is archived",
    start: "createBiometricVerification",
    steps: [
      { link: "resend", label: "resend", expect: ok("link_followed") },
      {
        link: "originalPdf",
        label: "the original's PDF, archived by the resend",
        expect: refused("archived_refused"),
      },
      {
        link: "pdf",
        label: "the new verification's PDF (read by its id)",
        from: 0,
        expect: { kind: "not-status", status: 404, check: "link_followed" },
      },
    ],
  },
  pdfTwice("PEP check", "createPepCheck", "pdf"),
  pdfTwice("KYB verification", "createKybVerification", "pdf"),
  pdfTwice("Online Ownership", "createPropertyVerification", "onlineOwnershipPdf"),
  {
    name: "EDD case: create, upload, the asset is listed, status",
    start: "createEddCase",
    steps: [
      { link: "read", label: "read by id", expect: ok("link_followed") },
      { link: "upload", label: "upload a file", from: 0, expect: ok("link_followed") },
      {
        link: "read",
        label: "read again: the asset is listed",
        expect: ok("link_followed"),
        verify: (sent) => {
          const assets = (sent.json as { assets?: unknown } | undefined)?.assets;
          return Array.isArray(assets) && assets.length > 0
            ? []
            : [
                {
                  in: "response.body",
                  check: "upload_listed",
                  pointer: "/assets",
                  message: "the uploaded file is not among the case's assets",
                },
              ];
        },
      },
      { link: "status", label: "set the process status", from: 0, expect: ok("link_followed") },
    ],
  },
];

/** The tasks of the stateful phase: each flow in order, and an unknown id for every operation on one. */
export function statefulFlows(
  session: ProbeSession,
  ops: ProbeOperation[],
  byId: Map<string, ProbeOperation>,
): (() => Promise<void>)[] {
  const selected = new Set(ops.map((op) => op.operationId));
  const tasks: (() => Promise<void>)[] = [];
  for (const flow of FLOWS) {
    const start = byId.get(flow.start);
    if (!start || !selected.has(flow.start)) continue;
    const targets = flow.steps.map((s) => linkTarget(start, byId, flow, s));
    if (targets.some((t) => t === undefined || !selected.has(t))) {
      if (targets.some((t) => t === undefined))
        session.notes.push(`stateful: ${flow.name}: a link the flow follows is not in the contract`);
      continue;
    }
    tasks.push(async () => {
      const first = await session.run({
        phase: "stateful",
        case: `${flow.name}: create`,
        op: start,
        params: new Map(),
        ...session.bodyFor(start),
        credentials: "valid",
        expect: ok("link_followed"),
      });
      if (!first || first.result.status < 200 || first.result.status >= 300) return;
      const sent: Sent[] = [first];
      for (const step of flow.steps) {
        const from = step.from === undefined ? sent[sent.length - 1]! : sent[step.from]!;
        const next = follow(
          session,
          from,
          step.link,
          "stateful",
          `${flow.name}: ${step.label}`,
          step.expect,
          byId,
        );
        if (!next) {
          session.results.push({
            phase: "stateful",
            case: `${flow.name}: ${step.label}`,
            operationId: from.probeCase.op.operationId,
            method: from.probeCase.op.method,
            path: from.probeCase.op.template,
            status: from.result.status,
            ms: 0,
            ok: false,
            violations: [
              {
                in: "response.body",
                check: "link_followed",
                pointer: "",
                message: `the link ${step.link} cannot be followed: the answer lacks the value its parameters name`,
              },
            ],
            warnings: [],
            curl: from.reproduce(),
          });
          return;
        }
        const result = await session.run(next);
        if (!result) return;
        if (step.verify) {
          const extra = step.verify(result);
          if (extra.length > 0) {
            result.result.violations.push(...extra);
            result.result.ok = false;
            result.result.curl ??= result.reproduce();
          }
        }
        sent.push(result);
      }
    });
  }
  // An unknown id is the documented 404, on every operation that takes one.
  for (const op of ops) {
    if (op.pathParams.length === 0 || !op.statuses.has("404")) continue;
    const params = exampleParams(op);
    for (const p of op.pathParams) params.set(p.name, unknownId(p.schema, session.random));
    const c: ProbeCase = {
      phase: "stateful",
      case: "an id the deployment does not have",
      op,
      params,
      ...session.bodyFor(op),
      credentials: "valid",
      expect: { kind: "status", status: 404, check: "unknown_id_not_found" },
    };
    tasks.push(async () => void (await session.run(c)));
  }
  return tasks;
}

/** The operation a step's link leads to (links of the flow's operations), for selection checks. */
function linkTarget(
  start: ProbeOperation,
  byId: Map<string, ProbeOperation>,
  flow: Flow,
  step: Step,
): string | undefined {
  // Walk the flow's links from the start to find which operation holds this step's link.
  const chain: ProbeOperation[] = [start];
  for (const s of flow.steps) {
    const from = s.from === undefined ? chain[chain.length - 1]! : chain[s.from]!;
    const link = [...from.links.values()].flat().find((l) => l.name === s.link);
    const target = link ? byId.get(link.operationId) : undefined;
    if (s === step) return target?.operationId;
    if (!target) return undefined;
    chain.push(target);
  }
  return undefined;
}
