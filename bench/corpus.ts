// A realistic traffic corpus with known verdicts: the contract's example exchanges, most sent as they
// are, some broken by one mutation whose expected violation is known.

import type { Exchange, RecordedBody } from "../conformance/traffic/exchange.js";
import type { CheckName } from "../conformance/findings/findings.js";
import { type ExampleExchange, exampleExchanges } from "./corpus-examples.js";
import { seededRandom } from "./seeded-random.js";
import type { Json } from "../src/contract/json.js";

/** A change that breaks one thing in a valid exchange, and the check that must notice. */
export interface Mutation {
  name: string;
  /** The check that must report a violation; undefined for a change that must only warn. */
  expect?: CheckName;
  /** For changes that must pass with a warning: the check the warning comes from. */
  warn?: CheckName;
  applies(example: ExampleExchange): boolean;
  apply(exchange: Exchange): void;
}

/** The verdict a corpus entry must get. */
export interface ExpectedVerdict {
  ok: boolean;
  /** A check that must be among the violations (or, when ok, among the warnings). */
  check?: CheckName;
  mutation?: string;
}

const jsonBody = (body: RecordedBody | undefined): Json => {
  if (body?.kind !== "text") return undefined;
  try {
    return JSON.parse(body.text);
  } catch {
    return undefined;
  }
};
const isJsonObject = (body: RecordedBody | undefined): boolean => {
  const v = jsonBody(body);
  return v !== null && typeof v === "object" && !Array.isArray(v);
};
const text = (value: string): RecordedBody => ({ kind: "text", text: value });
const isJson = (e: ExampleExchange) => e.mediaType === "application/json";

/** Every mutation of the corpus, one per check at least. */
const MUTATIONS: Mutation[] = [
  {
    name: "unknown path",
    expect: "route_known",
    applies: () => true,
    apply: (x) => {
      x.request.path = "/api/v9/unknown_product";
    },
  },
  {
    name: "undocumented method",
    expect: "route_known",
    applies: () => true,
    apply: (x) => {
      x.request.method = "DELETE";
    },
  },
  {
    name: "API key header missing",
    expect: "auth_headers_present",
    applies: (e) => "svc-api-key" in e.exchange.request.headers,
    apply: (x) => {
      delete x.request.headers["svc-api-key"];
    },
  },
  {
    name: "record id not an integer",
    expect: "request_parameters",
    applies: (e) => /\/1042(\/|$)/.test(e.exchange.request.path),
    apply: (x) => {
      x.request.path = x.request.path.replace(/\/1042(\/|$)/, "/first$1");
    },
  },
  {
    name: "request sent as text/plain",
    expect: "request_content_type",
    applies: (e) => e.exchange.request.headers["content-type"] === "application/json",
    apply: (x) => {
      x.request.headers["content-type"] = "text/plain";
    },
  },
  {
    name: "unknown request member",
    expect: "request_body_schema",
    applies: (e) => isJsonObject(e.exchange.request.body),
    apply: (x) => {
      x.request.body = text(JSON.stringify({ ...jsonBody(x.request.body), unexpected_member: "value" }));
    },
  },
  {
    name: "request body not JSON",
    expect: "request_body_schema",
    applies: (e) => e.exchange.request.headers["content-type"] === "application/json",
    apply: (x) => {
      x.request.body = text('{"reference": "truncated');
    },
  },
  {
    name: "status not documented",
    expect: "status_code_documented",
    applies: (e) => e.status < 300,
    apply: (x) => {
      if (x.response) x.response.status = 418;
    },
  },
  {
    name: "no response",
    expect: "status_code_documented",
    applies: () => true,
    apply: (x) => {
      x.response = undefined;
    },
  },
  {
    name: "JSON answered as HTML",
    expect: "response_content_type",
    applies: isJson,
    apply: (x) => {
      if (x.response) x.response.headers["content-type"] = "text/html; charset=utf-8";
    },
  },
  {
    name: "success body an array",
    expect: "response_body_schema",
    applies: (e) => isJson(e) && e.status < 300 && isJsonObject(e.exchange.response?.body),
    apply: (x) => {
      if (x.response) x.response.body = text("[]");
    },
  },
  {
    name: "PDF that is not a PDF",
    expect: "response_body_schema",
    applies: (e) => e.mediaType === "application/pdf",
    apply: (x) => {
      if (x.response) x.response.body = text("<html><body>Report</body></html>");
    },
  },
  {
    name: "Content-Disposition missing",
    expect: "response_headers",
    applies: (e) => e.exchange.response?.headers["content-disposition"] !== undefined,
    apply: (x) => {
      if (x.response) delete x.response.headers["content-disposition"];
    },
  },
  {
    name: "error of the wrong shape",
    expect: "error_shape",
    applies: (e) => isJson(e) && e.status >= 400,
    apply: (x) => {
      if (x.response)
        x.response.body = text(JSON.stringify({ error: "Something failed", status: x.response.status }));
    },
  },
  {
    name: "member the contract does not describe",
    warn: "response_body_schema",
    applies: (e) =>
      isJson(e) && e.status < 300 && e.describesMembers && isJsonObject(e.exchange.response?.body),
    apply: (x) => {
      if (x.response)
        x.response.body = text(JSON.stringify({ ...jsonBody(x.response.body), service_added_member: 1 }));
    },
  },
];

/** One corpus entry: the exchange and the verdict it must get. */
export interface CorpusEntry {
  exchange: Exchange;
  expected: ExpectedVerdict;
}

/** A corpus of `size` exchanges, `invalidShare` of them broken by one mutation each. */
export function buildCorpus(
  document: Json,
  size: number,
  invalidShare = 0.3,
  seed = 20261122,
): CorpusEntry[] {
  const examples = exampleExchanges(document);
  // The same seed, the same corpus: every run checks the same exchanges.
  const next = seededRandom(seed);
  const out: CorpusEntry[] = [];
  for (let i = 0; i < size; i++) {
    const example = examples[Math.floor(next() * examples.length)] as ExampleExchange;
    const exchange: Exchange = structuredClone(example.exchange);
    exchange.index = i;
    let expected: ExpectedVerdict = { ok: true };
    if (next() < invalidShare) {
      const applicable = MUTATIONS.filter((m) => m.applies(example));
      const mutation = applicable[Math.floor(next() * applicable.length)];
      if (mutation) {
        mutation.apply(exchange);
        expected = mutation.expect
          ? { ok: false, check: mutation.expect, mutation: mutation.name }
          : { ok: true, check: mutation.warn, mutation: mutation.name };
      }
    }
    out.push({ exchange, expected });
  }
  return out;
}

/** An exchange as one NDJSON line, in the format `idv-conformance check` reads. */
export function toNdjson(exchange: Exchange): string {
  const body = (b: RecordedBody | undefined) =>
    b === undefined
      ? undefined
      : b.kind === "text"
        ? b.text
        : b.kind === "bytes"
          ? b.bytes.toString("base64")
          : undefined;
  const encoding = (b: RecordedBody | undefined) => (b?.kind === "bytes" ? "base64" : undefined);
  const { request, response } = exchange;
  return JSON.stringify({
    request: {
      method: request.method,
      url: `https://idv.example.com${request.path}`,
      headers: request.headers,
      body: body(request.body),
      bodyEncoding: encoding(request.body),
    },
    response: response && {
      status: response.status,
      headers: response.headers,
      body: body(response.body),
      bodyEncoding: encoding(response.body),
    },
  });
}
