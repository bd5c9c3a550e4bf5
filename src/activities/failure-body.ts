/** Keys whose values are personal data: never copied into a failure (Temporal keeps failures). */
const PERSONAL_KEYS = new Set([
  'email',
  'to',
  'from',
  'cc',
  'bcc',
  'subject',
  'body',
  'html',
  'text',
  'name',
  'customer',
  'customerid',
  'address',
  'phone',
  'card',
]);
const MAX_STRING = 200;
const MAX_DEPTH = 4;
const MAX_KEYS = 20;

function scrub(value: unknown, depth: number): unknown {
  if (typeof value === 'string') {
    return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…(${value.length})` : value;
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '…';
  if (Array.isArray(value)) return value.slice(0, MAX_KEYS).map((v) => scrub(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value).slice(0, MAX_KEYS)) {
    out[k] = PERSONAL_KEYS.has(k.toLowerCase()) ? '[redacted]' : scrub(v, depth + 1);
  }
  return out;
}

/**
 * A provider response body as it may appear in a failure's details: personal fields
 * (email, recipient, subject, mail body, customer, address...) replaced by `[redacted]`,
 * strings cut at 200 characters, depth and width bounded. Status, error type and code stay,
 * which is what an operator needs to act.
 */
export function failureBody(body: unknown): unknown {
  return scrub(body, 0);
}
