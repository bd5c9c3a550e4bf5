import { strict as assert } from 'node:assert';
import { DEFAULT_ROUTES } from '../../../../src/domains';
import { translateMessage, type StartCommand } from '../../../../src/events/translate';
import { CARDS, generateCartStream } from '../../../../harness/tools/cart-stream';

const toRaw = (r: { key: string; value: string; headers: Record<string, unknown> }) => ({
  key: Buffer.from(r.key),
  value: Buffer.from(r.value),
  headers: r.headers as Record<string, string>,
});

const options = {
  carts: 400,
  seed: 17,
  prefix: 'run-cart',
  duplicateRate: 0.1,
  reemitRate: 0.05,
  versionBumpRate: 0.05,
  conflictRate: 0.05,
  cancelRate: 0.1,
  declineRate: 0.2,
  backupDeclineRate: 0.3,
  poisonRate: 0.05,
};

describe('cart stream generator (the demo and chaos)', () => {
  const stream = generateCartStream(options);
  const verdicts = stream.records.map((r) =>
    translateMessage(toRaw(r), DEFAULT_ROUTES, { maxBytes: 1 << 20 }),
  );

  it('is reproducible from its seed, and another seed gives another stream', () => {
    assert.deepEqual(generateCartStream(options), stream);
    assert.notDeepEqual(generateCartStream({ ...options, seed: 18 }).records, stream.records);
  });

  it('holds every defect class and counts each', () => {
    for (const [defect, n] of Object.entries(stream.counts)) assert.ok(n > 0, `${defect}: ${n}`);
    const c = stream.counts;
    assert.equal(c.carts, 400);
    assert.equal(
      stream.records.length,
      c.carts + c.duplicates + c.reemits + c.versionBumps + c.conflicts + c.cancels + c.poison,
    );
    assert.equal(stream.cancelledCartIds.length, c.cancels);
  });

  it('loops: carts of one to five lines, each SKU once; some primaries declined, some backups too', () => {
    const carts = [...stream.carts.values()];
    const sizes = new Set(carts.map((c) => c.lines.length));
    assert.deepEqual([...sizes].sort(), [1, 2, 3, 4, 5]);
    for (const c of carts) assert.equal(new Set(c.lines.map((l) => l.sku)).size, c.lines.length);
    assert.equal(
      stream.counts.lines,
      carts.reduce((s, c) => s + c.lines.length, 0),
    );
    const declined = carts.filter((c) => c.primaryCard === CARDS.declined);
    assert.equal(declined.length, stream.counts.declined);
    assert.equal(
      declined.filter((c) => c.backupCard === CARDS.declined).length,
      stream.counts.backupDeclined,
    );
  });

  it('emits contract events the bridge routes to the cart workflows; the poison is poison', () => {
    const poison = verdicts.filter((v) => v.kind === 'poison');
    assert.equal(poison.length, stream.counts.poison);
    assert.ok(poison.every((v) => v.kind === 'poison' && v.reason === 'validation-failed'));
    const starts = verdicts.filter((v): v is StartCommand => v.kind === 'start');
    assert.deepEqual([...new Set(starts.map((s) => s.workflowType))].sort(), [
      'cart',
      'cartCancellation',
    ]);
    assert.equal(new Set(starts.map((s) => s.identity)).size, stream.expectedWorkflows);
  });
});
