// openapi-fetch infers each call's whole init as a type parameter, so a misspelt top-level body member
// is never an excess property. These signatures check the init against the operation's own type instead.
import type { Client, FetchResponse, MaybeOptionalInit, ParseAs } from "openapi-fetch";
import type { paths } from "../../generated/types.js";

type Method = "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace";

/** The paths that have an operation for `M`. */
export type PathsWith<M extends Method> = {
  [P in keyof paths]: paths[P] extends { [K in M]: object } ? P : never;
}[keyof paths];

type Init<P extends keyof paths, M extends Method> = MaybeOptionalInit<paths[P], M>;
type Args<I, A extends ParseAs> = undefined extends I
  ? [init?: Exclude<I, undefined> & { parseAs?: A }]
  : [init: I & { parseAs?: A }];

/** One HTTP method of the client, typed strictly by the contract. */
export type StrictMethod<M extends Method> = <P extends PathsWith<M>, A extends ParseAs = "json">(
  url: P,
  ...init: Args<Init<P, M>, A>
) => Promise<
  FetchResponse<paths[P][M] & Record<string | number, unknown>, { parseAs: A }, "application/json">
>;

/** openapi-fetch's client with strictly typed GET, PUT, POST, DELETE and PATCH. */
export type StrictClient = Omit<
  Client<paths, "application/json">,
  "GET" | "PUT" | "POST" | "DELETE" | "PATCH"
> & {
  GET: StrictMethod<"get">;
  PUT: StrictMethod<"put">;
  POST: StrictMethod<"post">;
  DELETE: StrictMethod<"delete">;
  PATCH: StrictMethod<"patch">;
};
