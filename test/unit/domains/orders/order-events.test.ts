import { strict as assert } from 'node:assert';
import {
  MAX_AMOUNT_MINOR,
  MAX_QUANTITY,
  orderAmountMinor,
  orderCancelledDataSchema,
  orderPlacedDataSchema,
} from '../../../../src/domains/orders/order-events';
import { formatValidationError } from '../../../../src/events/data-schema';

type Line = { sku: string; quantity: number; unitPriceMinor: number };

function order(items: Line[], over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    orderId: 'o-1',
    customerId: 'c-1',
    email: 'a@example.com',
    currency: 'EUR',
    items,
    totalMinor: items.reduce((s, l) => s + l.quantity * l.unitPriceMinor, 0),
    ...over,
  };
}

/** The bridge's one-line verdict for `data`, or 'ok'. */
function verdict(data: Record<string, unknown>): string {
  const r = orderPlacedDataSchema.safeParse(data);
  return r.success ? 'ok' : formatValidationError(r.error, data);
}

describe('order events: bounds at the door', () => {
  it('accepts the largest quantity and a large, exact total', () => {
    assert.equal(verdict(order([{ sku: 's', quantity: MAX_QUANTITY, unitPriceMinor: 1 }])), 'ok');
    assert.equal(
      verdict(order([{ sku: 's', quantity: 1, unitPriceMinor: MAX_AMOUNT_MINOR }])),
      'ok',
    );
  });

  it('refuses a quantity over 1,000,000 (3,000,000,000 overflows the integer stock column)', () => {
    assert.equal(
      verdict(order([{ sku: 's', quantity: 3_000_000_000, unitPriceMinor: 100 }])),
      'data.items[0].quantity: must be at most 1,000,000',
    );
    assert.equal(
      verdict(order([{ sku: 's', quantity: MAX_QUANTITY + 1, unitPriceMinor: 1 }])),
      'data.items[0].quantity: must be at most 1,000,000',
    );
  });

  it('refuses a SKU whose quantity summed over lines exceeds the bound', () => {
    const half = { sku: 'dup', quantity: 600_000, unitPriceMinor: 1 };
    assert.equal(
      verdict(order([half, { sku: 'other', quantity: 1, unitPriceMinor: 1 }, half])),
      'data.items: quantity of SKU "dup" summed over lines is 1,200,000, more than 1,000,000',
    );
    // Different SKUs are counted apart.
    assert.equal(verdict(order([half, { ...half, sku: 'dup2' }])), 'ok');
  });

  it('refuses unit prices and totals beyond safe integers, and totals whose sum overflows', () => {
    assert.match(
      verdict(order([{ sku: 's', quantity: 1, unitPriceMinor: 2 ** 53 }])),
      /^data\.items\[0\]\.unitPriceMinor: /,
    );
    assert.match(
      verdict(order([{ sku: 's', quantity: 1, unitPriceMinor: 1 }], { totalMinor: 2 ** 53 })),
      /^data\.totalMinor: /,
    );
    // Each line is in bounds; their product is not: an inexact sum could equal a wrong total.
    const big = { sku: 's', quantity: 1000, unitPriceMinor: 2 ** 50 };
    assert.equal(
      verdict(order([big], { totalMinor: 1 })),
      'data.totalMinor: the sum of quantity × unitPriceMinor over items exceeds 9,007,199,254,740,991',
    );
    assert.equal(orderAmountMinor([big]), undefined);
    assert.equal(
      orderAmountMinor([
        { sku: 'a', quantity: 2, unitPriceMinor: 5 },
        { sku: 'b', quantity: 3, unitPriceMinor: 7 },
      ]),
      31,
    );
  });

  for (const [name, ch] of [
    ['NUL', '\u0000'],
    ['a tab', '\t'],
    ['an escape', '\u001b'],
    ['DEL', '\u007f'],
    ['a C1 control (NEL)', '\u0085'],
  ] as const) {
    it(`refuses ${name} in every ID field, even at the ends where trim would cut it`, () => {
      const line = { sku: `sku${ch}1`, quantity: 1, unitPriceMinor: 1 };
      assert.equal(
        verdict(order([line], { orderId: `o${ch}1`, customerId: `${ch}c-1` })),
        [
          'data.orderId: must not contain control characters',
          'data.customerId: must not contain control characters',
          'data.items[0].sku: must not contain control characters',
        ].join('; '),
      );
      const cancel = orderCancelledDataSchema.safeParse({ orderId: `o-1${ch}`, reason: 'r' });
      assert.equal(cancel.success, false);
    });
  }

  it('refuses lone surrogates and accepts real non-ASCII IDs', () => {
    const line = { sku: 'sku-\udc00', quantity: 1, unitPriceMinor: 1 };
    assert.equal(
      verdict(order([line], { orderId: 'o-\ud800', customerId: 'c-1' })),
      [
        'data.orderId: must be well-formed Unicode (no lone surrogates)',
        'data.items[0].sku: must be well-formed Unicode (no lone surrogates)',
      ].join('; '),
    );
    const fine = order([{ sku: 'café-😀', quantity: 1, unitPriceMinor: 1 }], {
      orderId: 'é'.repeat(40),
      customerId: 'kunde-ß',
    });
    assert.equal(verdict(fine), 'ok');
  });

  it('still trims surrounding spaces and refuses blank IDs', () => {
    const parsed = orderPlacedDataSchema.parse(
      order([{ sku: 's', quantity: 1, unitPriceMinor: 1 }], { orderId: ' o-1 ' }),
    );
    assert.equal(parsed.orderId, 'o-1');
    assert.match(
      verdict(order([{ sku: '  ', quantity: 1, unitPriceMinor: 1 }])),
      /must not be empty/,
    );
  });
});
