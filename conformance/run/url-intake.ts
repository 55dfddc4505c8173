// How the commands that send requests (`probe`, `receiver`, `proxy --upstream`) take a URL from their
// command line, and how the active reports show one. A URL is the one flag that may carry a secret in plain sight: a user name and
// password (which Node would send as Basic credentials on every request, including those meant to
// carry none), or a query value (receivers often take their secret as `?key=…`). The first is refused,
// the second is sent and never printed.
import { REDACTED } from "../../src/redact.js";
import { UsageError } from "./command.js";

/** A URL flag of a command: what errors call it, and what it does with a query. */
export interface UrlFlag {
  /** How errors name it: `--base-url`, `the receiver URL`. */
  name: string;
  /**
   * `refuse`: the command builds every query itself, so one in the URL would be silently dropped;
   * `secret`: the query is sent as given and its values never printed (see shownUrl).
   */
  query: "refuse" | "secret";
  /** Said after the refusal of a user name or password: where credentials go instead. */
  credentialsGo: string;
  /** Said after the refusal of a query: where each request's query comes from (default: the contract). */
  queryComesFrom?: string;
  /** A base URL that every request's path is appended to refuses a fragment too. */
  fragment?: "refuse";
}

/** Every URL flag of `probe` and `receiver`. */
export const URL_FLAGS = {
  baseUrl: {
    name: "--base-url",
    query: "refuse",
    credentialsGo: "the API credentials go in IDV_API_KEY and IDV_API_SECRET",
  },
  receiverUrl: {
    name: "the receiver URL",
    query: "secret",
    credentialsGo: "the receiver's credentials go in --auth (or IDV_RECEIVER_AUTH)",
  },
  workflowUrl: {
    name: "--workflow-url",
    query: "secret",
    credentialsGo: "workflow deliveries carry no credentials",
  },
} as const satisfies Record<string, UrlFlag>;

/**
 * An http(s) URL from a command line, or a UsageError (exit 2) naming the flag, never echoing the
 * value: a URL that is not one, another scheme, a user name or password, a query where none is taken.
 */
export function takeUrl(text: string, flag: UrlFlag): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${flag.name} is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`${flag.name} must be an http or https URL`);
  if (url.username || url.password)
    throw new UsageError(`${flag.name} must not hold a user name or password: ${flag.credentialsGo}`);
  if (flag.query === "refuse" && url.search)
    throw new UsageError(
      `${flag.name} must not hold a query: each request's query comes from ${flag.queryComesFrom ?? "the contract"}`,
    );
  if (flag.fragment === "refuse" && url.hash)
    throw new UsageError(
      `${flag.name} must not hold a fragment: it is a base URL each request's path is added to`,
    );
  return url;
}

/**
 * A URL as reports show it: origin and path, each query value (and a query item without `=`)
 * `[redacted]`, query names as written; never a user name, a password or a fragment.
 */
export function shownUrl(url: URL): string {
  const base = `${url.origin}${url.pathname}`;
  if (url.search === "") return base;
  const items = url.search
    .slice(1)
    .split("&")
    .map((item) => {
      const eq = item.indexOf("=");
      return item === "" ? "" : eq < 0 ? REDACTED : `${item.slice(0, eq)}=${REDACTED}`;
    });
  return `${base}?${items.join("&")}`;
}
