// One exchange through the defect server: the request forwarded to the sandbox as it came (or with
// the body a defect's unenforced rule lets through), then the sandbox's answer or the defect's.
// With no defect it is a plain pass-through: the clean proxy, the bench's reference.
import { type Defect, DefectMemory } from "./defect.js";
import { type ForwardAnswer, type ForwardRequest, seeRequest } from "./exchange.js";

/** Sends a request to the sandbox and resolves with its answer. */
export type Upstream = (request: ForwardRequest) => Promise<ForwardAnswer>;

/** What a defect changed in one exchange, for the server's count. */
export type Fired = "request" | "answer" | undefined;

/** The handler of one defect (none: the clean pass-through) in front of an upstream. */
export function defectHandler(
  defect: Defect | undefined,
  upstream: Upstream,
  onFired: (defect: Defect, what: Exclude<Fired, undefined>) => void = () => undefined,
): (request: ForwardRequest) => Promise<ForwardAnswer> {
  const memory = new DefectMemory();
  return async (request) => {
    if (!defect) return upstream(request);
    const seen = seeRequest(request);
    // Only the contract's operations the defect touches: the control API and the rest pass as they are.
    if (seen.operationId === undefined || !defect.scope.includes(seen.operationId)) return upstream(request);
    let sent = request;
    const body = defect.operations.includes(seen.operationId) ? defect.before?.(seen) : undefined;
    if (body) {
      sent = {
        ...request,
        body,
        headers: request.headers.map(([n, v]) =>
          n.toLowerCase() === "content-length" ? [n, String(body.length)] : [n, v],
        ),
      };
      onFired(defect, "request");
    }
    const answer = await upstream(sent);
    // A defect may remember what the journey's other operations answered (an export before the next).
    const instead = defect.after?.(seen, answer, memory);
    if (instead && defect.operations.includes(seen.operationId)) {
      onFired(defect, "answer");
      return instead;
    }
    return answer;
  };
}
