/**
 * One JSON POST over node:http(s) with keep-alive connections. The provider activities used
 * fetch; on this workload fetch spent about 250 µs more CPU per request than node:http (its
 * WHATWG streams, Headers and AbortSignal), two requests per order (issue 18).
 */
import http from 'node:http';
import https from 'node:https';

/**
 * Kept-alive sockets per process: the providers are the same few hosts for every activity.
 * An idle socket is closed after 4 s, before the 5 s after which Node's (and many) servers
 * close it, so a request is not written into a socket the server is closing.
 */
const transports = {
  'http:': { request: http.request, agent: new http.Agent({ keepAlive: true, timeout: 4000 }) },
  'https:': { request: https.request, agent: new https.Agent({ keepAlive: true, timeout: 4000 }) },
};

/** No complete response within the deadline (raised by postJson, like fetch's TimeoutError). */
export class HttpTimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

export interface HttpResponse {
  status: number;
  /** A response header (lower-case name), or null. */
  header(name: string): string | null;
  /** The body parsed as JSON, or `{}` when it is empty or not JSON. */
  json: Record<string, unknown>;
}

/**
 * POSTs `body` as JSON. Rejects with HttpTimeoutError when the whole exchange takes longer
 * than `timeoutMs`, and with the socket's error (its `code`: ECONNREFUSED, ECONNRESET, ...)
 * when the connection fails.
 */
export function postJson(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  timeoutMs: number,
): Promise<HttpResponse> {
  const target = new URL(url);
  const transport = transports[target.protocol as keyof typeof transports];
  if (!transport) return Promise.reject(new Error(`${url}: only http and https are supported`));
  const { request, agent } = transport;
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise<HttpResponse>((resolve, reject) => {
    const req = request(target, {
      method: 'POST',
      agent,
      headers: { ...headers, 'content-type': 'application/json', 'content-length': payload.length },
    });
    let deadline: HttpTimeoutError | undefined;
    const timer = setTimeout(() => {
      deadline = new HttpTimeoutError(`no complete response within ${timeoutMs} ms`);
      req.destroy(deadline);
    }, timeoutMs);
    req.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.once('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      // Once the response has begun, a connection that dies does not fail the request: the
      // response ends without 'end' ('aborted', then 'error' or 'close'). Without this the
      // call would wait for its deadline (minutes) for a body that can no longer come.
      const cut = () => {
        if (res.complete) return;
        clearTimeout(timer);
        if (deadline) return reject(deadline); // our own deadline cut it
        const err: NodeJS.ErrnoException = new Error(
          'the provider closed the connection before the response body ended',
        );
        err.code = 'ECONNRESET';
        reject(err);
      };
      res.once('error', cut);
      res.once('close', cut);
      res.once('end', () => {
        clearTimeout(timer);
        let json: Record<string, unknown> = {};
        try {
          const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          if (parsed && typeof parsed === 'object') json = parsed as Record<string, unknown>;
        } catch {
          // Not JSON (a proxy's error page, an empty body): the status still says what happened.
        }
        const header = (name: string) => {
          const value = res.headers[name.toLowerCase()];
          return (Array.isArray(value) ? value[0] : value) ?? null;
        };
        resolve({ status: res.statusCode ?? 0, header, json });
      });
    });
    req.end(payload);
  });
}
