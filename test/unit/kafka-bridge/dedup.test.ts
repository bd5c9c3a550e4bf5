import { strict as assert } from 'node:assert';
import { classifyAgainstLedger, classifyAlreadyStarted } from '../../../src/kafka-bridge/dedup';

const candidate = {
  identity: 'v:order-1@3',
  eventType: 'OrderPlaced',
  aggregateId: 'order-1',
  aggregateVersion: 3,
  fingerprint: 'f1',
};
const known = {
  eventType: 'OrderPlaced',
  fingerprint: 'f1',
  workflowId: 'OrderPlaced:v:order-1@3',
  runId: 'r1',
};

describe('bridge: classifyAgainstLedger', () => {
  it('is new when the ledger knows nothing', () => {
    assert.deepEqual(classifyAgainstLedger(candidate, undefined, undefined), { kind: 'new' });
    assert.deepEqual(classifyAgainstLedger(candidate, undefined, 2), { kind: 'new' });
  });
  it('is a duplicate for the same identity and fingerprint, even at the highest version', () => {
    assert.deepEqual(classifyAgainstLedger(candidate, known, 3), { kind: 'duplicate', known });
  });
  it('is an identity conflict for the same identity with another fingerprint', () => {
    const v = classifyAgainstLedger({ ...candidate, fingerprint: 'f2' }, known, 3);
    assert.equal(v.kind, 'poison');
    assert.equal(v.kind === 'poison' && v.reason, 'identity-conflict');
  });
  it('is an identity conflict when another event type used the identity', () => {
    const v = classifyAgainstLedger(
      { ...candidate, eventType: 'OrderCancelled' },
      known,
      undefined,
    );
    assert.equal(v.kind === 'poison' && v.reason, 'identity-conflict');
  });
  it('is stale at or below the highest applied version', () => {
    for (const highest of [3, 5]) {
      const v = classifyAgainstLedger(candidate, undefined, highest);
      assert.equal(v.kind === 'poison' && v.reason, 'stale-version');
      assert.match(
        v.kind === 'poison' ? v.error : '',
        /version 3 is at or below the highest applied version/,
      );
    }
  });
  it('never calls an unversioned event stale', () => {
    const unversioned = { ...candidate, aggregateVersion: undefined };
    assert.deepEqual(classifyAgainstLedger(unversioned, undefined, 9), { kind: 'new' });
  });
  it('compares memo fingerprints after an already-started error', () => {
    assert.equal(classifyAlreadyStarted('f1', 'f1'), 'duplicate');
    assert.equal(classifyAlreadyStarted('f1', 'f2'), 'identity-conflict');
    assert.equal(classifyAlreadyStarted('f1', undefined), 'duplicate');
  });
});
