import { strict as assert } from 'node:assert';
import { DEFAULT_ROUTES } from '../../../../src/domains';
import { translateMessage, type StartCommand } from '../../../../src/events/translate';
import { generatePayoutStream, interleaveRecords } from '../../../../harness/tools/payout-stream';

const toRaw = (r: { key: string; value: string; headers: Record<string, unknown> }) => ({
  key: Buffer.from(r.key),
  value: Buffer.from(r.value),
  headers: r.headers as Record<string, string>,
});

const options = {
  payouts: 400,
  seed: 17,
  prefix: 'run-payout',
  duplicateRate: 0.1,
  reemitRate: 0.05,
  versionBumpRate: 0.05,
  conflictRate: 0.05,
  cancelRate: 0.1,
  poisonRate: 0.05,
};

describe('payout stream generator (the demo, chaos and npm run produce -- --payouts)', () => {
  const stream = generatePayoutStream(options);
  const verdicts = stream.records.map((r) =>
    translateMessage(toRaw(r), DEFAULT_ROUTES, { maxBytes: 1 << 20 }),
  );

  it('is reproducible from its seed, and another seed gives another stream', () => {
    assert.deepEqual(generatePayoutStream(options), stream);
    const other = generatePayoutStream({ ...options, seed: 18 });
    assert.notDeepEqual(other.records, stream.records);
    assert.notDeepEqual(other.counts, stream.counts);
  });

  it('holds every defect class and counts each', () => {
    for (const [defect, n] of Object.entries(stream.counts)) assert.ok(n > 0, `${defect}: ${n}`);
    const c = stream.counts;
    assert.equal(c.payouts, 400);
    assert.equal(
      stream.records.length,
      c.payouts + c.duplicates + c.reemits + c.versionBumps + c.conflicts + c.cancels + c.poison,
    );
    assert.equal(stream.cancelledPayoutIds.length, c.cancels);
  });

  it('emits contract events the bridge routes to the payout workflows; the poison is poison', () => {
    const poison = verdicts.filter((v) => v.kind === 'poison');
    assert.equal(poison.length, stream.counts.poison);
    assert.ok(poison.every((v) => v.kind === 'poison' && v.reason === 'validation-failed'));
    const starts = verdicts.filter((v): v is StartCommand => v.kind === 'start');
    assert.deepEqual([...new Set(starts.map((s) => s.workflowType))].sort(), [
      'payout',
      'payoutCancellation',
    ]);
    // One identity per payout, per version bump and per cancellation: what the bridge starts.
    // (An identity conflict shares its original's identity; the bridge dead-letters it.)
    assert.equal(new Set(starts.map((s) => s.identity)).size, stream.expectedWorkflows);
  });

  it('keeps a payout’s events in order: its cancellation carries the highest version', () => {
    for (const payoutId of stream.cancelledPayoutIds) {
      const own = stream.records.filter((r) => r.key === payoutId);
      const versions = own.map((r) => Number(r.headers['aggregate-version'] ?? 1));
      const cancel = own.findIndex((r) => r.headers['event-type'] === 'PayoutCancelled');
      assert.equal(cancel, own.length - 1 - (own.at(-1) === own.at(-2) ? 1 : 0));
      const before = versions.slice(0, cancel);
      assert.ok(
        before.every((v) => v < versions[cancel]!),
        `${payoutId}: ${versions.join(', ')}`,
      );
    }
  });

  it('interleaves with the orders keeping each stream’s own order', () => {
    const rec = (key: string) => ({ key, value: '', headers: {} });
    const a = ['a0', 'a1', 'a2', 'a3', 'a4', 'a5'].map(rec);
    const b = ['b0', 'b1', 'b2'].map(rec);
    const merged = interleaveRecords(a, b).map((r) => r.key);
    assert.deepEqual(merged, ['a0', 'a1', 'b0', 'a2', 'a3', 'b1', 'a4', 'a5', 'b2']);
    assert.deepEqual(interleaveRecords(a, []), a);
    assert.deepEqual(
      interleaveRecords([], b).map((r) => r.key),
      ['b0', 'b1', 'b2'],
    );
  });
});
