import { buildEventMessage, type KafkaRecord } from '../../src/events/event-message';
import { createPrng } from '../../src/util/prng';
import {
  PAYOUT_EVENT_TYPES,
  type PayoutCancelledData,
  type PayoutRequestedData,
} from '../../src/domains/payouts/payout-events';
import { seededId } from './order-stream';

/** What the generated payout stream holds besides one clean PayoutRequested per payout. */
export interface PayoutStreamOptions {
  payouts: number;
  /** Seed of the pseudo-random choices; the same seed gives the same stream. Default: 1. */
  seed?: number;
  /** Prefix of payout IDs; a run-specific one keeps runs apart. Default: `payout`. */
  prefix?: string;
  /** Fraction of events sent again (same event ID). Default: 0. */
  duplicateRate?: number;
  /** Fraction of payouts re-emitted under a fresh event ID with the same version. Default: 0. */
  reemitRate?: number;
  /**
   * Fraction of payouts re-emitted as the next version with identical data (two identities,
   * two workflows; the second must end `duplicate` and act on nothing). Default: 0.
   */
  versionBumpRate?: number;
  /** Fraction of payouts whose version 1 is re-sent with another amount (DLQ'd). Default: 0. */
  conflictRate?: number;
  /** Fraction of payouts followed by a PayoutCancelled. Default: 0. */
  cancelRate?: number;
  /**
   * Fraction of extra poison messages: an invalid currency, a non-positive amount, or a
   * payoutId that is not the aggregate's (each dead-lettered `validation-failed`). Default: 0.
   */
  poisonRate?: number;
  /** Beneficiary chooser (a `blocked…` one is refused). Default: `ben-<payout>`. */
  beneficiaryId?: (payoutIndex: number) => string;
}

export interface PayoutStream {
  records: KafkaRecord[];
  /** Every valid PayoutRequested payload, by payout ID (what must be acted on once). */
  payouts: Map<string, PayoutRequestedData>;
  /** Payouts followed by a PayoutCancelled. */
  cancelledPayoutIds: string[];
  /** Workflows the bridge starts: one per payout, cancellation and version bump. */
  expectedWorkflows: number;
  counts: {
    payouts: number;
    duplicates: number;
    reemits: number;
    versionBumps: number;
    conflicts: number;
    cancels: number;
    poison: number;
  };
}

/** A different PRNG stream from the orders' of the same seed, still fixed by the seed. */
const PAYOUT_SEED_SALT = 0x9e3779b9;

/**
 * A contract-conforming stream of payout events with chosen defects, in an order a real
 * producer could emit: a payout's events stay in order; duplicates follow their original.
 */
export function generatePayoutStream(options: PayoutStreamOptions): PayoutStream {
  const seed = options.seed ?? 1;
  const random = createPrng((seed ^ PAYOUT_SEED_SALT) >>> 0);
  const prefix = options.prefix ?? 'payout';
  let ids = 0;
  const nextId = () => seededId(seed, prefix, ids++);
  const draw = (rate: number | undefined) => (rate ? random() < rate : false);
  const records: KafkaRecord[] = [];
  const counts = {
    payouts: 0,
    duplicates: 0,
    reemits: 0,
    versionBumps: 0,
    conflicts: 0,
    cancels: 0,
    poison: 0,
  };
  const payouts = new Map<string, PayoutRequestedData>();
  const cancelledPayoutIds: string[] = [];
  const maybeDuplicate = (record: KafkaRecord) => {
    records.push(record);
    if (draw(options.duplicateRate)) {
      records.push(record);
      counts.duplicates++;
    }
  };
  const requested = (
    aggregateId: string,
    data: unknown,
    version: number,
    style?: 'body',
  ): KafkaRecord =>
    buildEventMessage(
      {
        eventId: nextId(),
        eventType: PAYOUT_EVENT_TYPES.payoutRequested,
        aggregateId,
        aggregateVersion: version,
        data,
      },
      style,
    );
  for (let i = 0; i < options.payouts; i++) {
    const payoutId = `${prefix}-${i}`;
    const data: PayoutRequestedData = {
      payoutId,
      beneficiaryId: options.beneficiaryId?.(i) ?? `ben-${payoutId}`,
      email: `${payoutId}@example.com`,
      amountMinor: 1000 + Math.floor(random() * 90_000),
      currency: 'EUR',
    };
    counts.payouts++;
    payouts.set(payoutId, data);
    let version = 1;
    maybeDuplicate(requested(payoutId, data, version));
    if (draw(options.reemitRate)) {
      records.push(requested(payoutId, data, version, 'body'));
      counts.reemits++;
    }
    if (draw(options.conflictRate)) {
      records.push(requested(payoutId, { ...data, amountMinor: data.amountMinor + 1 }, version));
      counts.conflicts++;
    }
    if (draw(options.versionBumpRate)) {
      records.push(requested(payoutId, data, ++version));
      counts.versionBumps++;
    }
    if (draw(options.cancelRate)) {
      const cancel: PayoutCancelledData = { payoutId, reason: 'requester withdrew it' };
      maybeDuplicate(
        buildEventMessage({
          eventId: nextId(),
          eventType: PAYOUT_EVENT_TYPES.payoutCancelled,
          aggregateId: payoutId,
          aggregateVersion: version + 1,
          data: cancel,
        }),
      );
      counts.cancels++;
      cancelledPayoutIds.push(payoutId);
    }
    if (draw(options.poisonRate)) {
      const kind = Math.floor(random() * 3);
      const poisonId = `${prefix}-poison-${i}`;
      const bad =
        kind === 0
          ? { ...data, payoutId: poisonId, currency: 'euro' }
          : kind === 1
            ? { ...data, payoutId: poisonId, amountMinor: -data.amountMinor }
            : data; // another aggregate naming this payout
      records.push(requested(poisonId, bad, 1));
      counts.poison++;
    }
  }
  const expectedWorkflows = counts.payouts + counts.cancels + counts.versionBumps;
  return { records, payouts, cancelledPayoutIds, expectedWorkflows, counts };
}

/**
 * Two streams as one, each keeping its own order (so an entity's events stay in order): the
 * second's records spread evenly among the first's. Deterministic.
 */
export function interleaveRecords(a: KafkaRecord[], b: KafkaRecord[]): KafkaRecord[] {
  if (b.length === 0) return [...a];
  const out: KafkaRecord[] = [];
  let j = 0;
  for (let i = 0; i < a.length; i++) {
    out.push(a[i]!);
    while (j < b.length && (j + 1) * a.length <= (i + 1) * b.length) out.push(b[j++]!);
  }
  while (j < b.length) out.push(b[j++]!);
  return out;
}
