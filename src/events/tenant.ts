import type { Envelope, RawMessage } from './envelope';
import { readHeader } from './envelope';

/**
 * Where a route reads its events' tenant: a top-level field of the validated data, a header
 * of the message, or a function of the data and the envelope. A string or a finite number
 * counts; anything else (absent, null, an object) leaves the run without a tenant.
 */
export type TenantSpec<TData> =
  | { field: string }
  | { header: string }
  | ((data: TData, envelope: Envelope) => string | number | undefined);

/** A route's tenant, resolved: the tenant of one message, or undefined. */
export type TenantOf = (
  message: RawMessage,
  envelope: Envelope,
  data: unknown,
) => string | undefined;

function tenantValue(value: unknown): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** A TenantSpec as one function (defineRoute). A spec of neither shape is a programming error. */
export function resolveTenant<TData>(spec: TenantSpec<TData>): TenantOf {
  if (typeof spec === 'function')
    return (_m, envelope, data) => tenantValue(spec(data as TData, envelope));
  if ('field' in spec && typeof spec.field === 'string') {
    const { field } = spec;
    return (_m, _e, data) =>
      typeof data === 'object' && data !== null && Object.hasOwn(data, field)
        ? tenantValue((data as Record<string, unknown>)[field])
        : undefined;
  }
  if ('header' in spec && typeof spec.header === 'string') {
    const { header } = spec;
    return (message) => tenantValue(readHeader(message.headers, header));
  }
  throw new TypeError('tenant must be { field }, { header } or a function of (data, envelope)');
}
