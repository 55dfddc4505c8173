// A fetch that records every exchange as a HAR 1.2 entry, for the conformance suite to check.

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    headers: { name: string; value: string }[];
    queryString: { name: string; value: string }[];
    postData?: { mimeType: string; text: string; encoding?: string };
    headersSize: number;
    bodySize: number;
    cookies: [];
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    headers: { name: string; value: string }[];
    content: { size: number; mimeType: string; text: string; encoding?: string };
    redirectURL: string;
    headersSize: number;
    bodySize: number;
    cookies: [];
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
}

const isText = (type: string) => /json|text|xml/i.test(type);
const headerList = (h: Headers) => [...h.entries()].map(([name, value]) => ({ name, value }));

function encode(bytes: Buffer, type: string): { text: string; encoding?: string } {
  return isText(type)
    ? { text: bytes.toString("utf8") }
    : { text: bytes.toString("base64"), encoding: "base64" };
}

/** A fetch that passes requests on and keeps a HAR entry of each exchange. */
export function recordingFetch(inner: typeof fetch = fetch) {
  const entries: HarEntry[] = [];
  const recorded = async (input: Request | string | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const requestBytes = Buffer.from(await request.clone().arrayBuffer());
    const started = new Date();
    const response = await inner(request);
    const responseBytes = Buffer.from(await response.clone().arrayBuffer());
    const requestType = request.headers.get("content-type") ?? "";
    const responseType = response.headers.get("content-type") ?? "";
    const url = new URL(request.url);
    entries.push({
      startedDateTime: started.toISOString(),
      time: Date.now() - started.getTime(),
      request: {
        method: request.method,
        url: request.url,
        httpVersion: "HTTP/1.1",
        headers: headerList(request.headers),
        queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
        ...(requestBytes.length > 0
          ? { postData: { mimeType: requestType, ...encode(requestBytes, requestType) } }
          : {}),
        headersSize: -1,
        bodySize: requestBytes.length,
        cookies: [],
      },
      response: {
        status: response.status,
        statusText: response.statusText,
        httpVersion: "HTTP/1.1",
        headers: headerList(response.headers),
        content: {
          size: responseBytes.length,
          mimeType: responseType,
          ...encode(responseBytes, responseType),
        },
        redirectURL: "",
        headersSize: -1,
        bodySize: responseBytes.length,
        cookies: [],
      },
      cache: {},
      timings: { send: 0, wait: Date.now() - started.getTime(), receive: 0 },
    });
    return response;
  };
  return {
    fetch: recorded as typeof fetch,
    entries,
    har: () => ({ log: { version: "1.2", creator: { name: "idv-contract tests", version: "1" }, entries } }),
  };
}
