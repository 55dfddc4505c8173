// A fetch that records what it is sent and answers from a function: no mocking library.
export interface Sent {
  method: string;
  url: string;
  headers: Headers;
  body: Uint8Array<ArrayBuffer>;
}

/** A fetch recording every request (with its exact body bytes) and answering with `answer`. */
export function recordingFetch(
  answer: (request: Request, n: number) => Response | Promise<Response> = () => Response.json({}),
) {
  const sent: Sent[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    const body = new Uint8Array(await request.clone().arrayBuffer());
    sent.push({ method: request.method, url: request.url, headers: request.headers, body });
    return answer(request, sent.length);
  };
  return { fetch, sent };
}

/** Every header of a request as [name, value] pairs (lib DOM here has no Headers iterator). */
export function headerEntries(headers: Headers): [string, string][] {
  const out: [string, string][] = [];
  headers.forEach((value, name) => void out.push([name, value]));
  return out;
}

export const FIXED_DATE = new Date("2026-11-22T09:30:00.000Z");
export const BASE = {
  baseUrl: "https://idv.test",
  apiKey: "test-key-0001",
  secret: "test-secret-0001",
} as const;
