// HAR files as Firefox and Chrome DevTools write them, built from what a browser saw the way each tool's
// exporter builds its entries. Every quirk is taken from the exporter's source, named where it is used:
// - Firefox: devtools/client/netmonitor/src/har/har-builder.js (HarBuilder), har-builder-utils.js
//   (buildHarLog), devtools/client/shared/curl.js (CurlUtils.getHeadersFromMultipartText) and
//   devtools/client/locales/en-US/har.properties, in mozilla/gecko-dev.
// - Chrome: front_end/models/har/Log.ts (Entry.build, _buildRequest, _buildResponse, _buildContent) and
//   Writer.ts (contentLoaded), in ChromeDevTools/devtools-frontend.
// The HAR 1.2 fields themselves: http://www.softwareishard.com/blog/har-12-spec/.

/** One request as a browser saw it, and its answer when there was one. */
export interface Seen {
  method: string;
  url: string;
  /** Request headers as sent, in order (HTTP/1.1 names as written). */
  requestHeaders: [string, string][];
  postText?: string;
  /** The body held a Blob or File (a FormData upload): Chromium gives DevTools no text for it. */
  blob?: boolean;
  /** The answer; absent when the request failed (blocked, aborted, refused). */
  response?: {
    status: number;
    statusText: string;
    headers: [string, string][];
    mimeType: string;
    /** The body as text (JSON and text bodies). */
    text: string;
  };
  /** Why the request failed, in the browser's words (net::ERR_FAILED). */
  failure?: string;
}

const pairs = (list: [string, string][]) => list.map(([name, value]) => ({ name, value }));
const headerValue = (list: [string, string][], name: string): string =>
  list.find(([n]) => n.toLowerCase() === name)?.[1] ?? "";

/**
 * Firefox's CurlUtils.getHeadersFromMultipartText: unless the text starts with "---", the lines before
 * its first blank line that hold a colon are headers (of a multipart body: its first part's headers).
 */
function headersFromMultipartText(text: string | undefined): { name: string; value: string }[] {
  const headers: { name: string; value: string }[] = [];
  if (!text || text.startsWith("---")) return headers;
  const end = text.indexOf("\r\n\r\n");
  if (end === -1) return headers;
  let last: string | null = null;
  for (const line of text.substring(0, end).split("\r\n")) {
    if (last && /^\s+/.test(line)) {
      headers.push({ name: last, value: line.trim() });
      continue;
    }
    const colon = line.indexOf(":");
    if (colon === -1) continue;
    last = line.slice(0, colon).trim();
    headers.push({ name: last, value: line.slice(colon + 1).trim() });
  }
  return headers;
}

/** Firefox's dateToHarString: local time with its offset (2015-05-29T16:10:30.424+02:00), here +13:00. */
const firefoxDate = (ms: number): string =>
  `${new Date(ms + 13 * 3_600_000).toISOString().slice(0, -1)}+13:00`;

/**
 * A HAR as Firefox's network monitor exports it ("Save All As HAR"). `includeResponseBodies` is the
 * devtools.netmonitor.har.includeResponseBodies preference: without it no `text` is written, the size
 * stays what the monitor measured (or -1), and a comment says so. `version` is "1.2" from Firefox 60
 * (buildHarLog's HAR_VERSION), "1.1" before.
 */
export function firefoxHar(
  seen: Seen[],
  options: {
    includeResponseBodies: boolean;
    version: "1.1" | "1.2";
    http2?: boolean;
    /** Whether the monitor had each response's content (its size); buildContent writes -1 otherwise. */
    contentKnown?: boolean;
  },
): object {
  const started = Date.UTC(2026, 10, 25, 9, 30);
  const entries = seen.map((s, i) => {
    const httpVersion = options.http2 ? "HTTP/2" : "HTTP/1.1";
    // buildRequest: the request's headers, then appendHeadersPostData's (from the body's first lines).
    const headers = [...pairs(s.requestHeaders), ...headersFromMultipartText(s.postText)];
    const request: Record<string, unknown> = {
      bodySize: s.postText?.length ?? 0,
      method: s.method,
      url: s.url,
      httpVersion,
      headers,
      cookies: [],
      queryString: [...new URL(s.url).searchParams].map(([name, value]) => ({ name, value })),
      headersSize: s.requestHeaders.reduce((n, [k, v]) => n + k.length + v.length + 4, 0),
    };
    // buildPostData: the Content-Type header as mimeType, params [] unless URL-encoded, the text.
    if (s.postText)
      request.postData = {
        mimeType: headerValue(s.requestHeaders, "content-type"),
        params: [],
        text: s.postText,
      };
    // buildResponse: "Arbitrary value if it's aborted to make sure status has a number": 0.
    const res = s.response;
    const content: Record<string, unknown> = { mimeType: res?.mimeType, size: -1 };
    if (res && options.contentKnown !== false) content.size = Buffer.byteLength(res.text);
    if (!options.includeResponseBodies) content.comment = "Response bodies are not included.";
    else if (res) content.text = res.text;
    return {
      startedDateTime: firefoxDate(started + i * 250),
      request,
      response: {
        status: res?.status ?? 0,
        statusText: res?.statusText ?? "",
        httpVersion: res ? httpVersion : "",
        headers: res ? pairs(res.headers) : [],
        cookies: [],
        content,
        redirectURL: "",
        headersSize: res ? res.headers.reduce((n, [k, v]) => n + k.length + v.length + 4, 0) : -1,
        bodySize: res ? Buffer.byteLength(res.text) : -1,
      },
      cache: {},
      timings: res
        ? { blocked: 0, dns: 0, connect: 0, ssl: 0, send: 0, wait: 12, receive: 1 }
        : { blocked: -1, dns: -1, connect: -1, ssl: -1, send: -1, wait: -1, receive: -1 },
      time: res ? 13 : 0,
      // "Security state isn't part of HAR spec, and so create custom field that needs to use '_' prefix."
      _securityState: "insecure",
      _priority: "Normal",
      serverIPAddress: "127.0.0.1",
      connection: "4010",
      pageref: "page_1",
    };
  });
  return {
    log: {
      version: options.version,
      creator: { name: "Firefox", version: "140.0" },
      browser: { name: "Firefox", version: "140.0" },
      pages: [
        {
          id: "page_1",
          pageTimings: { onContentLoad: -1, onLoad: -1 },
          startedDateTime: firefoxDate(started),
          title: "http://127.0.0.1:4010/",
        },
      ],
      entries,
    },
  };
}

/**
 * A HAR as Chrome DevTools exports it ("Export HAR"), over HTTP/2: the request's headers are the
 * protocol's (pseudo-headers :authority, :method, :path, :scheme, lower-case names), no header text so
 * headersSize -1, fields of its own prefixed with "_" (_initiator, _priority, _resourceType,
 * _transferSize, _error); a request that failed has status 0 and its error in _error, no content text.
 */
export function chromeDevToolsHar(seen: Seen[]): object {
  const started = Date.UTC(2026, 10, 25, 9, 30);
  const entries = seen.map((s, i) => {
    const url = new URL(s.url);
    const requestHeaders = [
      [":authority", url.host],
      [":method", s.method],
      [":path", `${url.pathname}${url.search}`],
      [":scheme", url.protocol.slice(0, -1)],
      ...s.requestHeaders.map(([k, v]) => [k.toLowerCase(), v]),
      ...(s.postText ? [["content-length", String(Buffer.byteLength(s.postText))]] : []),
    ] as [string, string][];
    // _buildPostData and _requestBodySize: no form data (a Blob's) means no postData and bodySize 0.
    const postText = s.blob ? undefined : s.postText;
    const res = s.response;
    const request: Record<string, unknown> = {
      method: s.method,
      url: s.url.split("#", 2)[0],
      httpVersion: "http/2.0",
      headers: pairs(requestHeaders),
      queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
      cookies: [],
      headersSize: -1,
      bodySize: postText ? Buffer.byteLength(postText) : 0,
    };
    // _buildPostData: mimeType from the request's Content-Type, the text (params only for forms).
    if (postText)
      request.postData = { mimeType: headerValue(s.requestHeaders, "content-type"), text: postText };
    // _buildContent: resourceSize and mimeType ("x-unknown" when none); Writer's contentLoaded adds text.
    const content: Record<string, unknown> = {
      size: res ? Buffer.byteLength(res.text) : 0,
      mimeType: res?.mimeType || "x-unknown",
    };
    if (res) {
      content.compression = 0;
      content.text = res.text;
    }
    return {
      _initiator: { type: "script", stack: { callFrames: [] } },
      _priority: "High",
      _resourceType: "fetch",
      cache: {},
      connection: "311",
      pageref: "page_1",
      request,
      response: {
        status: res?.status ?? 0,
        // HTTP/2 has no reason phrase.
        statusText: "",
        httpVersion: res ? "http/2.0" : "",
        headers: res ? pairs(res.headers.map(([k, v]) => [k.toLowerCase(), v])) : [],
        cookies: [],
        content,
        redirectURL: "",
        headersSize: -1,
        bodySize: -1,
        _transferSize: res ? Buffer.byteLength(res.text) + 120 : 0,
        _error: s.failure ?? null,
      },
      serverIPAddress: res ? "127.0.0.1" : "",
      startedDateTime: new Date(started + i * 250).toJSON(),
      time: res ? 13.2 : 0.4,
      timings: {
        blocked: 0.6,
        dns: -1,
        ssl: -1,
        connect: -1,
        send: 0.1,
        wait: res ? 12 : 0,
        receive: res ? 0.5 : 0,
        _blocked_queueing: 0.4,
      },
    };
  });
  return {
    log: {
      version: "1.2",
      creator: { name: "WebInspector", version: "537.36" },
      pages: [
        {
          startedDateTime: new Date(started).toJSON(),
          id: "page_1",
          title: "http://127.0.0.1:4010/",
          pageTimings: { onContentLoad: 120.5, onLoad: 180.2 },
        },
      ],
      entries,
    },
  };
}
