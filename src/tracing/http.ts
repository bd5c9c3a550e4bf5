import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
} from '@opentelemetry/api';
import { activeTracing, tracer } from './active';

/** What a provider call's span needs: the request line and the response's status. */
export interface ClientCall<R extends { status: number }> {
  method: string;
  url: string;
  /** Sends the request with these headers (the caller's plus `traceparent`). */
  send: (headers: Record<string, string>) => Promise<R>;
}

function endWithStatus(span: Span, status: number): void {
  span.setAttribute('http.response.status_code', status);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: `HTTP ${status}` });
}

/**
 * One provider call as a CLIENT span, its context sent as `traceparent` (W3C) so the
 * provider's side joins the trace. With tracing off: the request as it was, no headers added.
 */
export async function tracedRequest<R extends { status: number }>(
  headers: Record<string, string>,
  call: ClientCall<R>,
): Promise<R> {
  if (!activeTracing()) return call.send(headers);
  const target = new URL(call.url);
  const span = tracer().startSpan(`${call.method} ${target.pathname}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      'http.request.method': call.method,
      'url.full': `${target.origin}${target.pathname}`,
      'server.address': target.hostname,
      'server.port': Number(target.port || (target.protocol === 'https:' ? 443 : 80)),
    },
  });
  const ctx = trace.setSpan(context.active(), span);
  const sent = { ...headers };
  propagation.inject(ctx, sent);
  try {
    const res = await context.with(ctx, () => call.send(sent));
    endWithStatus(span, res.status);
    return res;
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
    throw err;
  } finally {
    span.end();
  }
}

/**
 * A served request as a SERVER span continuing the caller's `traceparent` (the sandbox
 * providers), ended when the response is finished. With tracing off: `handle` alone.
 */
export async function withServerSpan(
  req: IncomingMessage,
  res: ServerResponse,
  route: string,
  handle: () => Promise<void>,
): Promise<void> {
  if (!activeTracing()) return handle();
  const parent = propagation.extract(ROOT_CONTEXT, req.headers);
  const method = req.method ?? 'GET';
  const span = tracer().startSpan(
    `${method} ${route}`,
    {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': method, 'url.path': route },
    },
    parent,
  );
  const key = req.headers['idempotency-key'];
  if (typeof key === 'string') span.setAttribute('onceflow.idempotency_key', key);
  try {
    await context.with(trace.setSpan(parent, span), handle);
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
    throw err;
  } finally {
    endWithStatus(span, res.statusCode);
    span.end();
  }
}
