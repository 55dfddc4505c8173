// Arazzo's runtime expressions and its simple condition syntax, as the probe's workflows use them:
// `$statusCode == 200`, `$response.body#/error_code == 'ALREADY_ARCHIVED'`, `$steps.create.outputs.id`,
// `$message.payload#/verification/status != 'review'`, joined by `&&` and `||`. Every value comes
// from outside (the answer, the event, the document), so reading it never throws and is bounded.
import { unescapeToken } from "../../src/contract/json-pointer.js";
import { ownMember } from "../../src/contract/resolve-ref.js";

/** What an expression of a step reads. Outputs are kept in maps: a step's name is never an object key. */
export interface StepValues {
  statusCode?: number;
  requestBody?: unknown;
  requestPath?: Map<string, string>;
  responseBody?: unknown;
  responseHeaders?: Record<string, string>;
  /** The awaited event's payload (`$message.payload`). */
  messagePayload?: unknown;
  inputs: Map<string, unknown>;
  /** Each earlier step's outputs, by stepId. */
  steps: Map<string, Map<string, unknown>>;
}

/** A pointer is followed this many tokens at most: an answer's nesting is the peer's choice. */
const MAX_TOKENS = 32;
/** A condition longer than this is not read (the documents' longest is under 100 characters). */
const MAX_CONDITION = 1000;

/** The member a JSON pointer names in `node`, or undefined. */
function at(node: unknown, pointer: string): unknown {
  if (pointer === "") return node;
  if (!pointer.startsWith("/")) return undefined;
  const tokens = pointer.split("/").slice(1).map(unescapeToken);
  if (tokens.length > MAX_TOKENS) return undefined;
  for (const token of tokens) node = ownMember(node, token);
  return node;
}

/** A body expression (`$response.body`, `$response.body#/a/b`) read from `body`. */
function bodyPart(expression: string, prefix: string, body: unknown): unknown {
  const rest = expression.slice(prefix.length);
  if (rest === "") return body;
  return rest.startsWith("#") ? at(body, rest.slice(1)) : undefined;
}

/** The value of a runtime expression; undefined when it names nothing there. */
export function valueOf(expression: string, values: StepValues): unknown {
  if (expression === "$statusCode") return values.statusCode;
  if (expression.startsWith("$response.body"))
    return bodyPart(expression, "$response.body", values.responseBody);
  if (expression.startsWith("$request.body"))
    return bodyPart(expression, "$request.body", values.requestBody);
  if (expression.startsWith("$message.payload"))
    return bodyPart(expression, "$message.payload", values.messagePayload);
  if (expression.startsWith("$response.header.")) {
    const key = expression.slice("$response.header.".length).toLowerCase();
    const headers = values.responseHeaders ?? {};
    return Object.hasOwn(headers, key) ? headers[key] : undefined;
  }
  if (expression.startsWith("$request.path.")) return values.requestPath?.get(expression.slice(14));
  if (expression.startsWith("$inputs.")) {
    const [name = "", ...pointer] = expression.slice("$inputs.".length).split("#");
    return at(values.inputs.get(name), pointer.join("#"));
  }
  const step = /^\$steps\.([^.]+)\.outputs\.([^#]+)(#.*)?$/.exec(expression);
  if (step) return at(values.steps.get(step[1]!)?.get(step[2]!), (step[3] ?? "#").slice(1));
  return undefined;
}

/** The names of the steps an expression, or any text holding expressions, reads the outputs of. */
export function stepsRead(text: string): string[] {
  return [...text.matchAll(/\$steps\.([A-Za-z0-9_-]+)\./g)].map((m) => m[1]!);
}

type Token = { kind: "op"; op: string } | { kind: "value"; value: unknown } | { kind: "expr"; text: string };

const OPERATORS = ["==", "!=", "<=", ">=", "&&", "||", "<", ">", "(", ")", "!"];

/** The tokens of a condition; undefined when it is not the simple syntax. */
function tokenize(text: string): Token[] | undefined {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const op = OPERATORS.find((o) => text.startsWith(o, i));
    if (op) {
      tokens.push({ kind: "op", op });
      i += op.length;
    } else if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      if (end < 0) return undefined;
      tokens.push({ kind: "value", value: text.slice(i + 1, end) });
      i = end + 1;
    } else {
      // A lone `=`, `&` or `|` is no operator of the syntax.
      const word = /^[^\s()=!<>&|]+/.exec(text.slice(i))?.[0];
      if (!word) return undefined;
      i += word.length;
      if (word.startsWith("$")) tokens.push({ kind: "expr", text: word });
      else if (word === "null" || word === "true" || word === "false")
        tokens.push({ kind: "value", value: JSON.parse(word) });
      else if (/^-?\d+(\.\d+)?$/.test(word)) tokens.push({ kind: "value", value: Number(word) });
      else return undefined;
    }
  }
  return tokens;
}

/** Equality of the simple syntax: a missing member equals null. */
const same = (a: unknown, b: unknown): boolean => (a ?? null) === (b ?? null);

/** A recursive-descent reading of tokens (depth bounded by the condition's length). */
class Reader {
  private i = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly values: StepValues,
  ) {}
  private peek = (op: string) => {
    const t = this.tokens[this.i];
    return t?.kind === "op" && t.op === op;
  };
  read(): unknown {
    const value = this.or();
    if (this.i !== this.tokens.length) throw new SyntaxError("unexpected token");
    return value;
  }
  private or(): unknown {
    let value = this.and();
    while (this.peek("||")) {
      this.i++;
      const right = this.and();
      value = value === true || right === true;
    }
    return value;
  }
  private and(): unknown {
    let value = this.compare();
    while (this.peek("&&")) {
      this.i++;
      const right = this.compare();
      value = value === true && right === true;
    }
    return value;
  }
  private compare(): unknown {
    const left = this.operand();
    const t = this.tokens[this.i];
    if (t?.kind !== "op" || !["==", "!=", "<", ">", "<=", ">="].includes(t.op)) return left;
    this.i++;
    const right = this.operand();
    if (t.op === "==") return same(left, right);
    if (t.op === "!=") return !same(left, right);
    if (typeof left !== "number" || typeof right !== "number") return false;
    return t.op === "<"
      ? left < right
      : t.op === ">"
        ? left > right
        : t.op === "<="
          ? left <= right
          : left >= right;
  }
  private operand(): unknown {
    const t = this.tokens[this.i++];
    if (!t) throw new SyntaxError("missing operand");
    if (t.kind === "value") return t.value;
    if (t.kind === "expr") return valueOf(t.text, this.values);
    if (t.op === "!") return this.operand() !== true;
    if (t.op !== "(") throw new SyntaxError("unexpected operator");
    const value = this.or();
    if (!this.peek(")")) throw new SyntaxError("missing )");
    this.i++;
    return value;
  }
}

/** Whether a condition holds; a condition not in the simple syntax is reported, never thrown. */
export function holds(condition: string, values: StepValues): { ok: boolean; unreadable?: boolean } {
  const tokens = condition.length > MAX_CONDITION ? undefined : tokenize(condition);
  if (!tokens || tokens.length === 0) return { ok: false, unreadable: true };
  try {
    return { ok: new Reader(tokens, values).read() === true };
  } catch {
    return { ok: false, unreadable: true };
  }
}
