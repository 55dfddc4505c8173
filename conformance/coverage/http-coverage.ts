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

/** Which kind a schema walk's members count as. */
type Side = "request" | "response";

/** Records what each checked exchange reached of an OpenAPI contract. */
export class HttpCoverage {
  readonly walker: SchemaWalker;
  private readonly sinks: Record<Side, WalkSinks>;
  /** The schema node of each schema pointer, looked up once. */
  private readonly roots = new Map<string, SchemaNode>();
  private readonly operations: Set<string>;
  private readonly statuses: Set<string>;

  constructor(
    model: ContractModel,
    readonly seen: SeenLocations,
  ) {
    this.walker = new SchemaWalker(model.document, httpGapLocations(model.document));
    const shared = {
      epoch: () => seen.epoch,
      branches: seen.of("branches"),
      enums: seen.of("enums"),
      gaps: seen.of("gaps"),
    };
    this.operations = seen.of("operations");
    this.statuses = seen.of("statuses");
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
    this.operations.add(op.pointer);
  }

  /** The alternative of the operation's security requirement an exchange met. */
  security(op: OperationModel, alternative: number): void {
    for (const scheme of op.securitySchemes[alternative] ?? []) this.seen.add("security", scheme);
  }

  /** A parameter sent, with its value as its schema judged it. */
  parameter(op: OperationModel, parameter: ParameterModel, value: unknown): void {
    this.seen.add("parameters", parameter.pointer);
    if (!parameter.schemaPointer) return;
    this.walker.walk(this.root(parameter.schemaPointer), value, this.sinks.request);
  }

  /** A request body of a documented media type, as JSON, or a form's parts (an object of its part names). */
  requestBody(media: MediaModel, value: unknown): void {
    this.walker.walk(this.root(media.schemaPointer), value, this.sinks.request);
  }

  status(response: ResponseModel): void {
    this.statuses.add(response.location);
    // A response reached through its `$ref` touches the gaps of the component it leads to.
    for (const gap of this.walker.gapsAt(response.pointer)) this.sinks.response.gaps.add(gap);
  }

  responseHeader(header: HeaderModel, value: string): void {
    this.seen.add("response-members", header.location);
    if (header.schemaPointer) this.walker.walk(this.root(header.schemaPointer), value, this.sinks.response);
  }

  responseBody(media: MediaModel, value: unknown): void {
    this.walker.walk(this.root(media.schemaPointer), value, this.sinks.response);
  }
}
