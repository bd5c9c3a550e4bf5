import { z } from 'zod';
import { PROVIDER_NAME, PROVIDER_NAME_RULE } from '../util/provider-queue';

/** Temporal clamps fairness weights to this range; a weight outside it is a config error here. */
const weight = z
  .number('must be a number')
  .min(0.001, 'must be at least 0.001')
  .max(1000, 'must be at most 1000');

/** Temporal keeps at most 1000 weight overrides per task queue (matching.maxFairnessKeyWeightOverrides). */
export const MAX_TENANT_WEIGHTS = 1000;

/** A JSON text parsed, or a zod issue saying it is not JSON. */
function json<T extends z.ZodType>(schema: T) {
  return z
    .string()
    .trim()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: `is not JSON: ${(err as Error).message}` });
        return z.NEVER;
      }
    })
    .pipe(schema);
}

/** TENANT_WEIGHTS: `{"acme": 2, "tiny-shop": 0.5}`. */
export const tenantWeights = json(
  z
    .record(z.string().min(1, 'a tenant must not be empty'), weight, 'must be a JSON object')
    .refine(
      (m) => Object.keys(m).length <= MAX_TENANT_WEIGHTS,
      `must name at most ${MAX_TENANT_WEIGHTS} tenants (Temporal's limit per task queue)`,
    ),
);

/** One provider's limit: calls per second over all tenants, and optionally per tenant. */
export interface ProviderRateLimit {
  perSecond?: number;
  perTenant?: number;
}

const rate = z.number('must be a number').positive('must be more than 0');

/** PROVIDER_RATE_LIMITS: `{"mail": 10, "card": {"perSecond": 50, "perTenant": 5}}`. */
export const providerRateLimits = json(
  z
    .record(
      z.string(),
      z.union(
        [
          rate.transform((perSecond): ProviderRateLimit => ({ perSecond })),
          z
            .strictObject({ perSecond: rate.optional(), perTenant: rate.optional() })
            .refine((l) => l.perSecond !== undefined || l.perTenant !== undefined, 'name a limit'),
        ],
        'must be calls per second or { perSecond, perTenant }',
      ),
      'must be a JSON object from provider to its limit',
    )
    // Names are checked here, not by the record's key schema, whose error only says "Invalid key".
    .superRefine((limits, ctx) => {
      for (const name of Object.keys(limits).filter((n) => !PROVIDER_NAME.test(n)))
        ctx.addIssue({
          code: 'custom',
          message: `provider ${JSON.stringify(name)} ${PROVIDER_NAME_RULE}`,
        });
    }),
);
