/**
 * Where the `tracing` drain variant's spans go: an OTLP/HTTP endpoint in the bench process
 * that answers every export with success and keeps nothing, so the variant measures what
 * tracing costs the product's processes (spans, context propagation, export), not a
 * collector's work. Its own CPU is the bench's.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TraceSink {
  /** OTEL_EXPORTER_OTLP_ENDPOINT for the traced processes. */
  url: string;
  /** Export requests received so far (a variant that exported nothing measured nothing). */
  requests(): number;
  close(): Promise<void>;
}

export async function startTraceSink(): Promise<TraceSink> {
  let requests = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
