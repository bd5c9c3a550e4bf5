import { loadConfigOrExit } from '../../src/config/load-or-exit';
import { createKafka } from '../../src/kafka/kafka-client';
import { publishPerPartition } from '../../src/kafka/send-per-partition';
import { parseArgsOrUsage, parsePositiveInt, UsageError } from '../../src/util/usage-error';
import { generateOrderStream } from './order-stream';
import { generatePayoutStream, interleaveRecords } from './payout-stream';

const USAGE = `usage: npm run produce -- --orders N [--seed S] [--duplicate-rate R] [--reemit-rate R]
       [--cancel-rate R] [--poison-rate R] [--conflict-rate R] [--stale-rate R]
       [--resend-rate R] [--version-bump-rate R] [--mismatch-rate R] [--payouts N]
       [--prefix P] [--topic T]
  --payouts            payouts beside the orders (PayoutRequested, with the same duplicate,
                       re-emit, version-bump, conflict, cancel and poison rates); default 0
  --resend-rate        unversioned orders re-sent under a fresh event ID (second run ends duplicate)
  --version-bump-rate  orders re-emitted as the next version with identical data (ditto)
  --mismatch-rate      extra OrderPlaced of another aggregate naming the order (dead-lettered)`;

function rate(raw: string | undefined, name: string): number {
  if (raw === undefined) return 0;
  const r = Number(raw);
  if (!(r >= 0 && r <= 1)) throw new UsageError(`--${name} must be between 0 and 1, got ${raw}`);
  return r;
}

/** `npm run produce`: publishes a generated order stream (with chosen defects) to the source topic. */
async function main(): Promise<void> {
  const { values } = parseArgsOrUsage({
    options: {
      orders: { type: 'string' },
      seed: { type: 'string' },
      'duplicate-rate': { type: 'string' },
      'reemit-rate': { type: 'string' },
      'cancel-rate': { type: 'string' },
      'poison-rate': { type: 'string' },
      'conflict-rate': { type: 'string' },
      'stale-rate': { type: 'string' },
      'resend-rate': { type: 'string' },
      'version-bump-rate': { type: 'string' },
      'mismatch-rate': { type: 'string' },
      payouts: { type: 'string' },
      prefix: { type: 'string' },
      topic: { type: 'string' },
    },
  });
  if (values.orders === undefined) throw new UsageError('--orders is required');
  const orders = parsePositiveInt(values.orders, '--orders', 0);
  const payoutCount = parsePositiveInt(values.payouts, '--payouts', 0);
  const config = loadConfigOrExit();
  const seed = values.seed ? Number(values.seed) : 1;
  const stream = generateOrderStream({
    orders,
    seed,
    duplicateRate: rate(values['duplicate-rate'], 'duplicate-rate'),
    reemitRate: rate(values['reemit-rate'], 'reemit-rate'),
    cancelRate: rate(values['cancel-rate'], 'cancel-rate'),
    poisonRate: rate(values['poison-rate'], 'poison-rate'),
    conflictRate: rate(values['conflict-rate'], 'conflict-rate'),
    staleRate: rate(values['stale-rate'], 'stale-rate'),
    resendRate: rate(values['resend-rate'], 'resend-rate'),
    versionBumpRate: rate(values['version-bump-rate'], 'version-bump-rate'),
    orderIdMismatchRate: rate(values['mismatch-rate'], 'mismatch-rate'),
    prefix: values.prefix,
  });
  const payouts = generatePayoutStream({
    payouts: payoutCount,
    seed,
    prefix: values.prefix ? `${values.prefix}-payout` : undefined,
    duplicateRate: rate(values['duplicate-rate'], 'duplicate-rate'),
    reemitRate: rate(values['reemit-rate'], 'reemit-rate'),
    versionBumpRate: rate(values['version-bump-rate'], 'version-bump-rate'),
    conflictRate: rate(values['conflict-rate'], 'conflict-rate'),
    cancelRate: rate(values['cancel-rate'], 'cancel-rate'),
    poisonRate: rate(values['poison-rate'], 'poison-rate'),
  });
  const records = interleaveRecords(stream.records, payouts.records);
  const kafka = createKafka(config.kafka, 'producer');
  const producer = kafka.producer();
  await producer.connect();
  try {
    const topic = values.topic ?? config.kafka.topics[0]!;
    // One call per partition: on three brokers a leader can move while a stream is written.
    await publishPerPartition(kafka, producer, { topic, messages: records });
    const expectedWorkflows = stream.expectedWorkflows + payouts.expectedWorkflows;
    process.stdout.write(
      `${JSON.stringify({ topic, messages: records.length, expectedWorkflows, ...stream.counts, payouts: payouts.counts })}\n`,
    );
  } finally {
    await producer.disconnect();
  }
}

main().catch((err: unknown) => {
  if (err instanceof UsageError) {
    process.stderr.write(`${err.message}\n${USAGE}\n`);
    process.exit(2);
  }
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
});
