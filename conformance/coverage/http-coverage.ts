// The coverage hooks of the HTTP checks: called where ExchangeChecker already walks an exchange, they
// record the contract locations it reached into a SeenLocations.
import type {
  ContractModel,
  HeaderModel,
  MediaModel,
  OperationModel,
  ParameterModel,
  ResponseModel,
} from "../checks/contract-model.js";
import { type SchemaNode, SchemaWalker, type WalkSinks } from "./schema-walk.js";
import type { SeenLocations } from "./seen.js";
import { httpGapLocations } from "./gaps.js";
import { httpBuilt } from "./built.js";
import { loadCoverageIndex } from "./coverage-index.js";

/**
 * Read the generated coverage index: awaited before any hook is made (with it, hooks on the bundled
 * contract do not search it for gaps). Not a top-level await: the single executables are CommonJS.
 */
export const coverageIndexRead: Promise<void> = loadCoverageIndex();

/** Which kind a schema walk's members count as. */
type Side = "request" | "response";

/** Records what each checked exchange reached of an OpenAPI contract. */
export class HttpCoverage {
  readonly walker: SchemaWalker;
  private readonly sinks: Record<Side, WalkSinks>;
  /** The schema node of each schema pointer, looked up once. */
  private readonly roots = new Map<string, SchemaNode>();
  /** The sets of `seen` the hooks add to, fetched once: a hook costs a set's `add`, not a lookup of its kind. */
  private readonly reached: Record<"operations" | "statuses" | "security" | "parameters", Set<string>>;

  constructor(
    model: ContractModel,
    readonly seen: SeenLocations,
  ) {
    this.walker = new SchemaWalker(model.document, httpGapLocations(model.document));
    httpBuilt.keep(model.document, { model, walker: this.walker });
    const shared = {
      epoch: () => seen.epoch,
      branches: seen.of("branches"),
      enums: seen.of("enums"),
      gaps: seen.of("gaps"),
    };
    this.reached = {
      operations: seen.of("operations"),
      statuses: seen.of("statuses"),
      security: seen.of("security"),
      parameters: seen.of("parameters"),
    };
    this.sinks = {
      request: { ...shared, side: 0, members: seen.of("request-members") },
      response: { ...shared, side: 1, members: seen.of("response-members") },
    };
  }

  private root(pointer: string): SchemaNode {
    let node = this.roots.get(pointer);
    if (node === undefined) {
      node = this.walker.at(pointer);
      this.roots.set(pointer, node);
    }
    return node;
  }

  operation(op: OperationModel): void {
    this.reached.operations.add(op.pointer);
  }

  /** The alternative of the operation's security requirement an exchange met. */
  security(op: OperationModel, alternative: number): void {
    const schemes = op.securitySchemes[alternative];
    if (schemes === undefined) return;
    for (let i = 0; i < schemes.length; i++) this.reached.security.add(schemes[i] as string);
  }

  /** A parameter sent, with its value as its schema judged it. */
  parameter(op: OperationModel, parameter: ParameterModel, value: unknown): void {
    this.reached.parameters.add(parameter.pointer);
    if (!parameter.schemaPointer) return;
    this.walker.walk(this.root(parameter.schemaPointer), value, this.sinks.request);
  }

  /** A request body of a documented media type, as JSON, or a form's parts (an object of its part names). */
  requestBody(media: MediaModel, value: unknown): void {
    this.walker.walk(this.root(media.schemaPointer), value, this.sinks.request);
  }

  status(response: ResponseModel): void {
    this.reached.statuses.add(response.location);
    // A response reached through its `$ref` touches the gaps of the component it leads to.
    const gaps = this.walker.gapsAt(response.pointer);
    for (let i = 0; i < gaps.length; i++) this.sinks.response.gaps.add(gaps[i] as string);
  }

  responseHeader(header: HeaderModel, value: string): void {
    this.sinks.response.members.add(header.location);
    if (header.schemaPointer) this.walker.walk(this.root(header.schemaPointer), value, this.sinks.response);
  }

  responseBody(media: MediaModel, value: unknown): void {
    this.walker.walk(this.root(media.schemaPointer), value, this.sinks.response);
  }
}
