import { strict as assert } from 'node:assert';
import { z } from 'zod';
import { defineRoute } from '../../../src/events/define-route';
import { buildEventMessage } from '../../../src/events/event-message';
import { routeTableOf } from '../../../src/events/routes';
import { translateMessage, type StartCommand } from '../../../src/events/translate';
import { fairnessKeyOf, priorityOf } from '../../../src/temporal/run-priority';

const schema = z.object({ giftId: z.string(), shop: z.string().optional() });

function startOf(
  tenant: Parameters<typeof defineRoute<z.infer<typeof schema>>>[0]['tenant'],
  data: object,
  headers: Record<string, string> = {},
): StartCommand {
  const route = defineRoute({ eventType: 'GiftBought', schema, workflow: 'gift', tenant });
  const record = buildEventMessage({ eventType: 'GiftBought', aggregateId: 'g1', data });
  const cmd = translateMessage(
    {
      key: Buffer.from(record.key),
      value: Buffer.from(record.value),
      headers: { ...record.headers, ...headers },
    },
    routeTableOf([route]),
    { maxBytes: 100_000 },
  );
  assert.equal(cmd.kind, 'start', JSON.stringify(cmd));
  return cmd as StartCommand;
}

describe("events: a route's tenant and a run's priority", () => {
  it('reads the tenant from a data field, a header or a function; none when absent', () => {
    assert.equal(startOf({ field: 'shop' }, { giftId: 'g1', shop: 'acme' }).tenant, 'acme');
    assert.equal(startOf({ field: 'shop' }, { giftId: 'g1' }).tenant, undefined);
    assert.equal(
      startOf({ header: 'tenant' }, { giftId: 'g1' }, { tenant: 'globex' }).tenant,
      'globex',
    );
    assert.equal(startOf((d) => `shop-${d.giftId}`, { giftId: 'g1' }).tenant, 'shop-g1');
    assert.equal(startOf(undefined, { giftId: 'g1', shop: 'acme' }).tenant, undefined);
  });

  it('is live unless the message carries the DLQ replay header', () => {
    assert.equal(startOf(undefined, { giftId: 'g1' }).origin, 'live');
    const replayed = startOf(undefined, { giftId: 'g1' }, { 'onceflow-replay-of': 'x.dlq/0/1' });
    assert.equal(replayed.origin, 'replay');
  });

  it('live runs go first; replays, backfills and bulk retries behind them', () => {
    assert.deepEqual(priorityOf('live', 'acme'), { priorityKey: 2, fairnessKey: 'acme' });
    for (const origin of ['replay', 'backfill', 'bulk-retry'] as const)
      assert.ok(priorityOf(origin).priorityKey! > priorityOf('live').priorityKey!, origin);
    assert.deepEqual(priorityOf('live'), { priorityKey: 2 });
  });

  it('bounds a tenant to 64 bytes: a longer one is a head, ~ and a hash, two never one', () => {
    const long = 'ü'.repeat(40);
    const key = fairnessKeyOf(long);
    assert.ok(Buffer.byteLength(key) <= 64, key);
    assert.match(key, /~[0-9a-f]{32}$/);
    assert.notEqual(fairnessKeyOf(`${long}x`), key);
    assert.equal(fairnessKeyOf('acme'), 'acme');
  });
});
