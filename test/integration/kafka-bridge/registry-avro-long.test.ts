import { strict as assert } from 'node:assert';
import { decodeArrayFromPayloads } from '@temporalio/common/lib/internal-non-workflow';
import { z } from 'zod';
import { defineRoute } from '../../../src/events/define-route';
import { HEADER } from '../../../src/events/envelope';
import { mergeRoutes } from '../../../src/events/routes';
import { DEFAULT_ROUTES } from '../../../src/domains';
import { BridgeHarness } from '../../support/bridge-harness';
import { produceWithApicurioSerde } from '../../support/java-registry-producer';
import { stackRegistryUrl } from '../../support/node-registry-producer';
import { uniqueName } from '../../support/services';

/** A ledger entry whose IDs and timestamps are 64-bit: every one of them beyond 2^53. */
const ENTRY_AVRO = JSON.stringify({
  type: 'record',
  name: 'EntryPosted',
  namespace: 'onceflow.test',
  fields: [
    { name: 'entryId', type: 'long' },
    { name: 'amountMinor', type: 'long' },
    { name: 'postedAtNanos', type: { type: 'long', logicalType: 'timestamp-nanos' } },
  ],
});

const decimal = z.string().regex(/^-?\d+$/);
const ROUTES = mergeRoutes(DEFAULT_ROUTES, [
  defineRoute({
    eventType: 'EntryPosted',
    schema: z.object({ entryId: decimal, amountMinor: decimal, postedAtNanos: decimal }),
    workflow: 'entryPosted',
  }),
]);

describe('bridge: Avro longs beyond 2^53 through the schema registry', function () {
  this.timeout(120_000);
  let h: BridgeHarness;
  before(async () => {
    h = await new BridgeHarness().setUp(1);
  });
  after(async () => {
    await h?.tearDown();
  });

  it("2^63 − 1 and a negative long from Apicurio's Java serde start with their decimal text", async () => {
    const entry = uniqueName('entry');
    await produceWithApicurioSerde({
      brokers: h.config.kafka.brokers,
      registryUrl: await stackRegistryUrl(),
      topic: h.topic,
      format: 'avro',
      schema: ENTRY_AVRO,
      records: [
        {
          key: entry,
          headers: {
            [HEADER.eventId]: `${entry}-1`,
            [HEADER.eventType]: 'EntryPosted',
            [HEADER.aggregateId]: entry,
          },
          json: undefined,
          // Written as text: JSON.stringify cannot hold these numbers.
          jsonText:
            '{"entryId": 9223372036854775807, "amountMinor": -9007199254740993, "postedAtNanos": 1767225600123456789}',
        },
      ],
    });
    await h.startBridge({ routes: ROUTES });
    await h.waitUntilAllCommitted();
    const dead = await h.readDlq();
    assert.deepEqual(
      dead.map((d) => `${d.headers['dlq-reason']}: ${d.headers['dlq-error']}`),
      [],
    );
    const { rows } = await h.pool.query<{ workflow_id: string }>(
      `SELECT workflow_id FROM "${h.schema}".processed_events`,
    );
    assert.equal(rows.length, 1, 'started once');
    const handle = h.client.workflow.getHandle(rows[0]!.workflow_id);
    const started = (await handle.fetchHistory()).events?.[0]
      ?.workflowExecutionStartedEventAttributes;
    const [input] = await decodeArrayFromPayloads(
      h.client.options.loadedDataConverter,
      started?.input?.payloads,
    );
    assert.deepEqual((input as { data: unknown }).data, {
      entryId: '9223372036854775807',
      amountMinor: '-9007199254740993',
      postedAtNanos: '1767225600123456789',
    });
  });
});
