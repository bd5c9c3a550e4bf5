// What the parseEnvelope tests share: the size limit they parse under, the poison they expect.
import { strict as assert } from 'node:assert';
import { type ParseEnvelopeResult, type PoisonReason } from '../../../src/events/envelope';

export const options = { maxBytes: 64 * 1024 };

export function poisonOf(result: ParseEnvelopeResult): { reason: PoisonReason; error: string } {
  assert.equal(result.ok, false, `expected poison, got ${JSON.stringify(result)}`);
  return result as { reason: PoisonReason; error: string };
}
