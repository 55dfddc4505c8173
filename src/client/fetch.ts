/** A fetch: the init, when given, carries the abort signal of the client's deadline and `redirect: "manual"`. */
export type Fetch = (input: Request, init?: RequestInit) => Promise<Response>;
