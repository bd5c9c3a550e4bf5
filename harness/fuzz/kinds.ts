/**
 * The hostile message kinds: each builds one message from the seeded random source and says
 * what the bridge should do with it.
 */
import { buildEventMessage } from '../../src/events/event-message';
import { sampleOrderPlaced } from '../../src/domains/orders/order-samples';
import {
  deepJson,
  INVALID_UTF8,
  LIMIT_NUMBERS,
  LIMIT_VERSIONS,
  ODD_ID_SUFFIXES,
  PROTOTYPE_NAMES,
  randomHeaderName,
  randomHeaderValue,
  type Rand,
} from './hostile';

import { FUZZ_EVENT_TYPE, headersOf, type FuzzMessage, type HeaderValue } from './message';

/** What a kind's builder gets: the run's random source, names and the valid orders so far. */
export interface Ctx {
  rand: Rand;
  prefix: string;
  seq: number;
  skus: readonly string[];
  valid: FuzzMessage[];
}
export type Built = Omit<FuzzMessage, 'seq' | 'kind' | 'partition'>;

function identity(
  ctx: Ctx,
  aggregateId = `${ctx.prefix}p${ctx.seq}`,
): Array<[string, HeaderValue]> {
  return [
    ['event-id', `${ctx.prefix}e${ctx.seq}`],
    // Not FuzzNote: its route takes any JSON object, so the poison values below would be valid.
    ['event-type', 'OrderPlaced'],
    ['aggregate-id', aggregateId],
    ['aggregate-version', '1'],
  ];
}

const POISON_VALUES = [
  '{not json',
  '[]',
  '{"data":null}',
  '{"data":{"orderId":1}}',
  '"x"',
  '{"data":[]}',
];

function poison(ctx: Ctx, entries: Array<[string, HeaderValue]>, key?: string | null): Built {
  const aggregateId = entries.find(([n]) => n === 'aggregate-id')?.[1];
  return {
    key: key === undefined ? (typeof aggregateId === 'string' ? aggregateId : null) : key,
    value: ctx.rand.pick(POISON_VALUES),
    headers: headersOf(entries),
    expect: 'dlq',
  };
}

function validOrder(ctx: Ctx, orderId = `${ctx.prefix}o${ctx.seq}`): Built {
  const style = ctx.rand.chance(0.2) ? 'body' : 'headers';
  const m = buildEventMessage(
    {
      eventType: 'OrderPlaced',
      aggregateId: orderId,
      aggregateVersion: 1,
      data: sampleOrderPlaced(orderId, { lines: ctx.rand.int(1, 3), sku: (i) => ctx.skus[i]! }),
    },
    style,
  );
  const entries = Object.entries(m.headers).map(([k, v]) => [k, String(v)] as [string, string]);
  // Odd but harmless headers must not stop a valid event.
  if (ctx.rand.chance(0.3))
    entries.push([ctx.rand.pick(PROTOTYPE_NAMES), ctx.rand.bytes(8)] as never);
  if (ctx.rand.chance(0.2)) entries.push(['trace-id', null] as never);
  return {
    key: ctx.rand.chance(0.1) ? null : m.key,
    value: m.value,
    headers: headersOf(entries),
    expect: 'start',
  };
}

/** Schema IDs of "another registry": far above any this stack's registry hands out. */
const FOREIGN_SCHEMA_IDS = [1_900_000_001, 1_900_000_002, 1_900_000_003, 1_900_000_004];

/** Message kinds and their weights (about 2 % valid orders). */
export const KINDS: Array<[string, number, (ctx: Ctx) => Built]> = [
  ['valid-order', 1.7, (ctx) => validOrder(ctx)],
  [
    'redelivery',
    0.3,
    (ctx) => {
      if (ctx.valid.length === 0) return validOrder(ctx);
      const { key, value, headers } = ctx.rand.pick(ctx.valid);
      return { key, value, headers, expect: 'duplicate' };
    },
  ],
  [
    'prototype-headers',
    9,
    (ctx) => {
      const extra = Array.from({ length: ctx.rand.int(1, 4) }, () => [
        ctx.rand.pick(PROTOTYPE_NAMES),
        ctx.rand.chance(0.2) ? null : ctx.rand.bytes(ctx.rand.int(0, 16)),
      ]) as Array<[string, HeaderValue]>;
      return poison(ctx, [...identity(ctx), ...extra]);
    },
  ],
  [
    'null-header-values',
    9,
    (ctx) => {
      const entries = identity(ctx).map(([n, v]): [string, HeaderValue] => [
        n,
        n !== 'aggregate-id' && ctx.rand.chance(0.3) ? null : v,
      ]);
      entries.push(['trace-id', null]);
      if (ctx.rand.chance(0.3))
        entries.push(['dlq-failure-count', null], ['dlq-first-failed-at', null]);
      return poison(ctx, entries);
    },
  ],
  [
    'repeated-headers',
    7,
    (ctx) => {
      const entries = identity(ctx);
      const name = ctx.rand.pick(['event-id', 'event-type', 'x-repeat', 'constructor']);
      for (let i = ctx.rand.int(1, 40); i > 0; i--)
        entries.push([name, ctx.rand.chance(0.5) ? `r${i}` : ctx.rand.chance(0.5) ? null : 'same']);
      return poison(ctx, entries);
    },
  ],
  [
    'random-headers',
    9,
    (ctx) => {
      const entries = ctx.rand.chance(0.7) ? identity(ctx) : [];
      for (let i = ctx.rand.int(1, 20); i > 0; i--)
        entries.push([randomHeaderName(ctx.rand), randomHeaderValue(ctx.rand)]);
      return poison(ctx, entries, ctx.rand.chance(0.5) ? `${ctx.prefix}k${ctx.seq}` : null);
    },
  ],
  [
    'many-headers',
    0.3,
    (ctx) => {
      const entries = identity(ctx);
      const n = ctx.rand.int(1_000, 8_000);
      for (let i = 0; i < n; i++) entries.push([ctx.rand.chance(0.1) ? 'dup' : `h-${i}`, `${i}`]);
      return poison(ctx, entries);
    },
  ],
  [
    'binary-value',
    8,
    (ctx) => ({ ...poison(ctx, identity(ctx)), value: ctx.rand.bytes(ctx.rand.int(1, 4_000)) }),
  ],
  [
    // A producer of another registry (staging) on a shared topic: the wire format with a
    // schema ID this registry does not know (a few, as one producer's schemas). The bridge
    // waits BRIDGE_SCHEMA_UNKNOWN_AFTER, then dead-letters its values schema-unknown.
    'foreign-registry',
    1,
    (ctx) => {
      const header = Buffer.alloc(5);
      header.writeUInt32BE(FOREIGN_SCHEMA_IDS[ctx.rand.int(0, FOREIGN_SCHEMA_IDS.length - 1)]!, 1);
      const value = Buffer.concat([header, ctx.rand.bytes(ctx.rand.int(0, 200))]);
      return { ...poison(ctx, identity(ctx)), value };
    },
  ],
  [
    'invalid-utf8',
    7,
    (ctx) => {
      const bad = ctx.rand.pick(INVALID_UTF8);
      const entries = identity(ctx);
      if (ctx.rand.chance(0.5)) {
        entries[ctx.rand.int(0, 3)]![1] = Buffer.concat([Buffer.from(`${ctx.prefix}`), bad]);
        return poison(ctx, entries);
      }
      const value = Buffer.concat([Buffer.from('{"data":{"orderId":"'), bad, Buffer.from('"}}')]);
      return { ...poison(ctx, entries), value };
    },
  ],
  [
    'tiny-value',
    7,
    (ctx) => ({
      ...poison(ctx, ctx.rand.chance(0.7) ? identity(ctx) : []),
      value: ctx.rand.pick([null, '', ' ', '{', '0', 'null', '{}', '"x"', Buffer.from([0])]),
    }),
  ],
  [
    'deep-nesting',
    2,
    (ctx) => {
      const deep = deepJson(ctx.rand.int(4_000, 6_000), ctx.rand.chance(0.5));
      const entries = identity(ctx);
      const asNote = ctx.rand.chance(0.6);
      entries[1] = ['event-type', asNote ? FUZZ_EVENT_TYPE : 'OrderPlaced'];
      const value = asNote
        ? `{"data":{"deep":${deep}}}`
        : ctx.rand.pick([deep, `{"data":${deep}}`]);
      return { ...poison(ctx, entries), value };
    },
  ],
  [
    'number-limits',
    7,
    (ctx) => {
      const orderId = `${ctx.prefix}n${ctx.seq}`;
      const m = buildEventMessage({
        eventType: 'OrderPlaced',
        aggregateId: orderId,
        aggregateVersion: 1,
        data: sampleOrderPlaced(orderId, { sku: (i) => ctx.skus[i]! }),
      });
      const entries = Object.entries(m.headers).map(
        ([k, v]) => [k, String(v)] as [string, HeaderValue],
      );
      let value = m.value;
      if (ctx.rand.chance(0.4))
        entries[entries.length - 1] = ['aggregate-version', ctx.rand.pick(LIMIT_VERSIONS)];
      else {
        const field = ctx.rand.pick(['totalMinor', 'quantity', 'unitPriceMinor']);
        value = value.replace(
          new RegExp(`"${field}":-?[0-9.e]+`),
          `"${field}":${ctx.rand.pick(LIMIT_NUMBERS)}`,
        );
      }
      return { key: orderId, value, headers: headersOf(entries), expect: 'any' };
    },
  ],
  ['null-key', 4, (ctx) => poison(ctx, identity(ctx), null)],
  [
    'odd-ids',
    7,
    (ctx) => {
      const orderId = `${ctx.prefix}i${ctx.seq}${ctx.rand.pick(ODD_ID_SUFFIXES)}`;
      const m = buildEventMessage(
        {
          eventId: ctx.rand.chance(0.3) ? `${orderId}` : undefined,
          eventType: 'OrderPlaced',
          aggregateId: orderId,
          aggregateVersion: ctx.rand.chance(0.3) ? undefined : 1,
          // Plain customer and email: only the IDs are odd, so a well-formed one can start.
          data: {
            ...sampleOrderPlaced(orderId, { sku: (i) => ctx.skus[i]! }),
            customerId: `${ctx.prefix}c${ctx.seq}`,
            email: `fuzz${ctx.seq}@example.com`,
          },
        },
        // Only a JSON body carries lone surrogates (as \u escapes); UTF-8 headers cannot.
        ctx.rand.chance(0.5) ? 'body' : 'headers',
      );
      const headers = headersOf(Object.entries(m.headers).map(([k, v]) => [k, String(v)]));
      return { key: ctx.rand.chance(0.2) ? null : m.key, value: m.value, headers, expect: 'any' };
    },
  ],
  [
    'wrong-shape',
    7,
    (ctx) => {
      const entries = identity(ctx);
      const variant = ctx.rand.int(0, 3);
      if (variant === 0) entries.splice(ctx.rand.int(0, 2), 1); // missing identity field
      if (variant === 1)
        entries[1] = ['event-type', ctx.rand.pick(['OrderTeleported', '', '1x', 'é'])];
      const value = ctx.rand.pick([
        '{"data":"x"}',
        '{"eventId":{},"data":{}}',
        '{"data":{"a":1}',
        'true',
      ]);
      return { ...poison(ctx, entries), value };
    },
  ],
];

/** Huge values (> 1 MiB, incompressible) at these sequence numbers modulo 1,000. */
export const HUGE_AT = new Set([500]);

/** A value over 1 MiB of random (incompressible) bytes, with the contract's headers. */
export function huge(ctx: Ctx): Built {
  const size = ctx.rand.int(1_100_000, 1_600_000);
  return { ...poison(ctx, identity(ctx)), value: ctx.rand.bytes(size) };
}
