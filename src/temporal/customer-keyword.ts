import { createHmac, hkdfSync } from 'node:crypto';
import type { Config } from '../config';

/** Prefix of a hashed CustomerId, so an operator can tell it from a raw ID. */
export const HASHED_CUSTOMER_PREFIX = 'c_';

/**
 * The CustomerId search-attribute value for a customer ID. Search attributes are indexed
 * unencrypted, so by default the value is a keyed hash: equal IDs still match (an operator
 * searches `CustomerId = "<value>"` with the value this function gives for the ID), but the
 * stored value does not reveal the ID. Returns undefined when no key exists
 * (encryption off and no ONCEFLOW_SEARCH_HMAC_KEY): then the ID is stored as sent.
 */
export function customerKeywordFor(
  config: Pick<Config, 'searchAttributes' | 'encryption'>,
): ((customerId: string) => string) | undefined {
  if (config.searchAttributes.customerId === 'plain') return undefined;
  const ring = config.encryption.ring;
  const key =
    config.searchAttributes.hmacKey ??
    (ring
      ? Buffer.from(
          hkdfSync('sha256', ring.current.key, '', 'onceflow CustomerId search attribute', 32),
        )
      : undefined);
  if (!key) return undefined;
  return (customerId) =>
    `${HASHED_CUSTOMER_PREFIX}${createHmac('sha256', key).update(customerId, 'utf8').digest('hex').slice(0, 40)}`;
}
