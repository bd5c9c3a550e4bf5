// What the translateMessage tests share: the size limit, the poison and the start they expect.
import { strict as assert } from 'node:assert';
import { type Translation } from '../../../src/events/translate';

export const options = { maxBytes: 64 * 1024 };

export function poisonOf(t: Translation): { reason: string; error: string } {
  assert.equal(t.kind, 'poison', `expected poison, got ${JSON.stringify(t)}`);
  return t as { reason: string; error: string };
}

export function startOf(t: Translation) {
  assert.equal(t.kind, 'start', `expected a start, got ${JSON.stringify(t)}`);
  return t as Extract<Translation, { kind: 'start' }>;
}
