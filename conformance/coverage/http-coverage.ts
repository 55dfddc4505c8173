// The coverage hooks of the HTTP checks: called where ExchangeChecker already walks an exchange, they
// record the contract locations it reached into a SeenLocations.
import type { ValidateFunction } from "ajv";
import { AjvCompiler } from "../checks/ajv-compiler.js";
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

/** Which kind a schema walk's members count as. */
type Side = "request" | "response";

/** A branch validator that compiles the contract with ajv on first use (the build-time validators hold none). */
export function lazyBranchValidator(document: object): (pointer: string) => ValidateFunction {
  let compiler: AjvCompiler | undefined;
  return (pointer) => (compiler ??= new AjvCompiler(document)).validator(pointer);
}

/** Records what each checked exchange reached of an OpenAPI contract. */
export class HttpCoverage {
  readonly walker: SchemaWalker;
  private readonly sinks: Record<Side, WalkSinks>;
  /** The schema node of each schema pointer, looked up once. */
  private readonly roots = new Map<string, SchemaNode>();

  constructor(
    model: ContractModel,
    readonly seen: SeenLocations,
  ) {
    this.walker = new SchemaWalker(model.document, lazyBranchValidator(model.document));
    const shared = { branches: seen.of("branches"), enums: seen.of("enums"), schemas: seen.of("schemas") };
    this.sinks = {
      request: { ...shared, members: seen.of("request-members") },
      response: { ...shared, members: seen.of("response-members") },
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
    this.seen.add("operations", op.pointer);
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
    this.seen.add("statuses", response.location);
    this.seen.add("schemas", response.pointer);
  }

  responseHeader(header: HeaderModel, value: string): void {
    this.seen.add("response-members", header.location);
    if (header.schemaPointer) this.walker.walk(this.root(header.schemaPointer), value, this.sinks.response);
  }

  responseBody(media: MediaModel, value: unknown): void {
    this.walker.walk(this.root(media.schemaPointer), value, this.sinks.response);
  }
}
