import { strict as assert } from 'node:assert';
import { ConfigError } from '../../../src/config';
import { orderPlacedDataSchema } from '../../../src/domains/orders/order-events';
import { buildRouteTable, DEFAULT_ROUTES } from '../../../src/domains';
import { checkOrderIsAggregate } from '../../../src/domains/orders/order-routes';
import { mergeRoutes, parseExtraRoutes } from '../../../src/events/routes';
import { translateMessage, type Translation } from '../../../src/events/translate';
import * as workflows from '../../../src/domains/orders/workflows';
import * as payoutWorkflows from '../../../src/domains/payouts/workflows';
import * as cartWorkflows from '../../../src/domains/carts/workflows';
import { WORKFLOW_TYPE } from '../../../src/domains/orders/workflows/workflow-types';
import { headerMessage, orderPlacedData } from './fixtures';

function settingsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ConfigError, `expected ConfigError, got ${String(err)}`);
    return err.problems.map((p) => `${p.setting}: ${p.message}`);
  }
  assert.fail('expected a ConfigError');
}

describe('bridge: routes', () => {
  it('routes the contract events by default', () => {
    const placed = DEFAULT_ROUTES.get('OrderPlaced');
    assert.equal(placed?.workflowType, 'orderFulfillment');
    assert.equal(placed?.identity, 'aggregate-version');
    assert.equal(placed?.dataSchema, orderPlacedDataSchema, 'reuses the event contract schema');
    assert.equal(DEFAULT_ROUTES.get('OrderCancelled')?.workflowType, 'orderCancellation');
    assert.equal(DEFAULT_ROUTES.get('PayoutRequested')?.workflowType, 'payout');
    assert.equal(DEFAULT_ROUTES.get('PayoutCancelled')?.workflowType, 'payoutCancellation');
    assert.equal(DEFAULT_ROUTES.get('CartCheckedOut')?.workflowType, 'cart');
    assert.equal(DEFAULT_ROUTES.get('CartCancelled')?.workflowType, 'cartCancellation');
    assert.equal(DEFAULT_ROUTES.size, 6);
  });

  it('routes only to workflow functions the worker registers', () => {
    // Renaming a workflow without its route must fail here, not at the first event.
    const registered = { ...workflows, ...payoutWorkflows, ...cartWorkflows } as Record<
      string,
      unknown
    >;
    for (const route of DEFAULT_ROUTES.values()) {
      assert.equal(typeof registered[route.workflowType], 'function', route.workflowType);
      assert.equal((registered[route.workflowType] as { name: string }).name, route.workflowType);
    }
    for (const [name, type] of Object.entries(WORKFLOW_TYPE)) {
      assert.equal(type, name);
      assert.equal(typeof registered[type], 'function', type);
    }
  });

  it('parses the shorthand and the full form', () => {
    const routes = parseExtraRoutes(
      '{"InvoiceIssued":"invoiceWorkflow","RefundRequested":{"workflowType":"refund","identity":"event-id","workflowIdPrefix":"Refund"}}',
    );
    assert.deepEqual(
      routes.map(({ dataSchema: _s, ...r }) => r),
      [
        {
          eventType: 'InvoiceIssued',
          workflowType: 'invoiceWorkflow',
          identity: 'aggregate-version',
          workflowIdPrefix: 'InvoiceIssued',
        },
        {
          eventType: 'RefundRequested',
          workflowType: 'refund',
          identity: 'event-id',
          workflowIdPrefix: 'Refund',
        },
      ],
    );
  });

  it('gives configured routes a schema that accepts any JSON object only', () => {
    const [route] = parseExtraRoutes({ Ping: 'pingWorkflow' });
    assert.ok(route!.dataSchema.safeParse({ a: [1, { b: null }] }).success);
    assert.equal(route!.dataSchema.safeParse([1]).success, false);
    assert.equal(route!.dataSchema.safeParse('x').success, false);
  });

  it('treats blank text as no extra routes', () => {
    assert.deepEqual(parseExtraRoutes('  '), []);
    assert.equal(buildRouteTable(undefined), DEFAULT_ROUTES);
  });

  it('names every problem with its path', () => {
    assert.deepEqual(settingsOf(() => parseExtraRoutes('{oops')).length, 1);
    assert.match(
      settingsOf(() => parseExtraRoutes('{oops'))[0]!,
      /^BRIDGE_EXTRA_ROUTES: is not JSON/,
    );
    assert.match(
      settingsOf(() => parseExtraRoutes('[]'))[0]!,
      /^BRIDGE_EXTRA_ROUTES: must be a JSON object/,
    );
    const problems = settingsOf(() =>
      parseExtraRoutes({
        Good: 'ok',
        Bad: { workflowType: 'x', identity: 'offset' },
        Worse: { workflowType: 'y', extra: true },
        Empty: '',
      }),
    );
    assert.ok(
      problems.some((p) => p.startsWith('BRIDGE_EXTRA_ROUTES.Bad')),
      problems.join('\n'),
    );
    assert.ok(
      problems.some((p) => p.startsWith('BRIDGE_EXTRA_ROUTES.Worse')),
      problems.join('\n'),
    );
    assert.ok(
      problems.some((p) => p.startsWith('BRIDGE_EXTRA_ROUTES.Empty')),
      problems.join('\n'),
    );
  });

  it('rejects event types that are not names', () => {
    assert.deepEqual(
      settingsOf(() => parseExtraRoutes({ 'bad type': 'wf' })),
      [
        'BRIDGE_EXTRA_ROUTES.bad type: event type must start with a letter and use letters, digits, . _ - (at most 100)',
      ],
    );
  });

  it('merges extra routes and refuses to redefine a built-in one', () => {
    const table = buildRouteTable('{"InvoiceIssued":"invoiceWorkflow"}');
    assert.equal(table.size, 7);
    assert.equal(table.get('InvoiceIssued')?.workflowType, 'invoiceWorkflow');
    assert.equal(DEFAULT_ROUTES.size, 6, 'the defaults are not mutated');
    assert.deepEqual(
      settingsOf(() => mergeRoutes(DEFAULT_ROUTES, parseExtraRoutes({ OrderPlaced: 'mine' }))),
      ['BRIDGE_EXTRA_ROUTES.OrderPlaced: is a built-in route and cannot be redefined'],
    );
  });

  describe('orderId must equal the aggregate ID on the built-in order routes', () => {
    const options = { maxBytes: 1 << 20 };
    const poisonOf = (t: Translation) => {
      assert.equal(t.kind, 'poison', JSON.stringify(t));
      return t as Extract<Translation, { kind: 'poison' }>;
    };

    it('is a rule of both order routes, and of no configured route', () => {
      assert.equal(DEFAULT_ROUTES.get('OrderPlaced')?.checkEvent, checkOrderIsAggregate);
      assert.equal(DEFAULT_ROUTES.get('OrderCancelled')?.checkEvent, checkOrderIsAggregate);
      assert.equal(parseExtraRoutes({ Ping: 'pingWorkflow' })[0]!.checkEvent, undefined);
      assert.equal(checkOrderIsAggregate({ aggregateId: 'o-1' }, { orderId: 'o-1' }), undefined);
    });

    it('dead-letters an OrderPlaced for another order as validation-failed, naming both IDs', () => {
      const t = poisonOf(
        translateMessage(
          headerMessage(orderPlacedData({ orderId: 'order-999' })),
          DEFAULT_ROUTES,
          options,
        ),
      );
      assert.equal(t.reason, 'validation-failed');
      assert.equal(
        t.error,
        'OrderPlaced: data.orderId "order-999" must equal the aggregate ID "order-123"',
      );
    });

    it('dead-letters an OrderCancelled for another order too', () => {
      const t = poisonOf(
        translateMessage(
          headerMessage({ orderId: 'order-999', reason: 'r' }, { 'event-type': 'OrderCancelled' }),
          DEFAULT_ROUTES,
          options,
        ),
      );
      assert.equal(t.reason, 'validation-failed');
      assert.match(t.error, /^OrderCancelled: data\.orderId "order-999" must equal/);
    });

    it('compares the validated orderId: surrounding spaces are trimmed first', () => {
      const t = translateMessage(
        headerMessage(orderPlacedData({ orderId: ' order-123 ' })),
        DEFAULT_ROUTES,
        options,
      );
      assert.equal(t.kind, 'start');
    });

    it('reports schema problems first: an invalid orderId is not compared', () => {
      const t = poisonOf(
        translateMessage(
          headerMessage(orderPlacedData({ orderId: 'order-123\u0000' })),
          DEFAULT_ROUTES,
          options,
        ),
      );
      assert.equal(t.error, 'OrderPlaced: data.orderId: must not contain control characters');
    });
  });
});
