import { strict as assert } from 'node:assert';
import { translateMessage } from '../../../src/events/translate';
import { DEFAULT_ROUTES } from '../../../src/domains';
import { defineRoute } from '../../../src/events/define-route';
import { anyJsonObjectSchema, routeTableOf } from '../../../src/events/routes';
import { MAX_WORKFLOW_ID_LENGTH } from '../../../src/events/identity';
import { detailsOf } from '../../../src/kafka-bridge/workflow-starter';
import { bodyMessage, headerMessage, orderPlacedData } from './fixtures';
import { options, poisonOf, startOf } from './translate-helpers';

describe('bridge: translateMessage', () => {
  describe("fits Temporal's limits", () => {
    const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');
    /** A route whose entity and customer come from the data, as a domain's route names them. */
    const longRoutes = routeTableOf([
      defineRoute<Record<string, unknown>>({
        eventType: 'Note',
        workflow: 'note',
        identity: 'event-id',
        schema: anyJsonObjectSchema,
        entityId: (d) => d.orderId as string,
        customerId: (d) => d.customerId as string,
      }),
    ]);

    it('truncates the summary to 400 bytes on a code point boundary', () => {
      const t = startOf(
        translateMessage(
          headerMessage(
            { orderId: 'order-123', reason: '😀'.repeat(500) },
            { 'event-type': 'OrderCancelled', 'aggregate-version': '2' },
          ),
          DEFAULT_ROUTES,
          options,
        ),
      );
      assert.ok(utf8(t.summary) <= 400, `${utf8(t.summary)} bytes`);
      // Shortened inside its code span: the fence that closes it is never cut off.
      assert.match(t.summary, /^Cancel order `order-123` · `(😀)+…`$/u);
    });

    it('keeps every code span of the summary closed however long and backtick-laden the IDs', () => {
      const t = startOf(
        translateMessage(
          headerMessage(
            { orderId: 'order-123', reason: '`'.repeat(300) + '<img src=x>' + '`'.repeat(300) },
            { 'event-type': 'OrderCancelled', 'aggregate-version': '2' },
          ),
          DEFAULT_ROUTES,
          options,
        ),
      );
      assert.ok(utf8(t.summary) <= 400, `${utf8(t.summary)} bytes`);
      assert.ok(!t.summary.endsWith('…'), 'not cut after the spans: each span fits its budget');
      const reasonSpan = t.summary.split(' · ')[1]!;
      const fence = /^`+/.exec(reasonSpan)![0];
      assert.ok(reasonSpan.endsWith(fence), reasonSpan);
    });

    it('bounds each Keyword search attribute to 255 characters and 2 KiB, keeping it distinct', () => {
      const a = startOf(
        translateMessage(
          headerMessage(
            { orderId: 'é'.repeat(5000), customerId: 'c'.repeat(300) },
            { 'event-type': 'Note' },
          ),
          longRoutes,
          options,
        ),
      );
      const b = startOf(
        translateMessage(
          headerMessage(
            { orderId: `${'é'.repeat(4999)}e`, customerId: 'c' },
            { 'event-type': 'Note' },
          ),
          longRoutes,
          options,
        ),
      );
      for (const v of Object.values(a.searchAttributes)) {
        assert.ok(v.length <= 255 && utf8(v) <= 2048, `${v.length} characters`);
      }
      assert.match(a.searchAttributes.EntityId!, /^é+~[0-9a-f]{32}$/);
      assert.notEqual(a.searchAttributes.EntityId, b.searchAttributes.EntityId);
      assert.equal(b.searchAttributes.CustomerId, 'c', 'a short value is untouched');
    });

    it('keeps the workflow ID, details and memo small for the longest, oddest IDs', () => {
      const id = '😀'.repeat(100);
      const aggregateId = `"\\${'é'.repeat(198)}`;
      const t = startOf(
        translateMessage(
          bodyMessage(
            {
              eventId: id,
              aggregateId,
              aggregateVersion: 2 ** 52,
              // The built-in order routes require the order to be its aggregate.
              data: { ...orderPlacedData(), orderId: aggregateId },
            },
            null,
          ),
          DEFAULT_ROUTES,
          options,
        ),
      );
      assert.ok(t.workflowId.length <= MAX_WORKFLOW_ID_LENGTH);
      assert.ok(
        utf8(detailsOf(t, { topic: 't'.repeat(249), partition: 1, offset: '1' })) <= 20_000,
      );
      assert.ok(utf8(JSON.stringify(t.memo)) <= 4096, `${utf8(JSON.stringify(t.memo))} bytes`);
      assert.ok(utf8(t.summary) <= 400);
    });

    it('a lone surrogate in an ID → validation-failed, not a workflow shared with U+FFFD', () => {
      for (const lone of ['\ud800', '\udc00']) {
        const p = poisonOf(
          translateMessage(
            bodyMessage({ eventId: lone, aggregateVersion: undefined }, null),
            DEFAULT_ROUTES,
            options,
          ),
        );
        assert.equal(p.reason, 'validation-failed');
      }
      const ok = startOf(
        translateMessage(
          bodyMessage({ eventId: '\ufffd', aggregateVersion: undefined }, null),
          DEFAULT_ROUTES,
          options,
        ),
      );
      assert.equal(ok.workflowId, 'OrderPlaced:e:%EF%BF%BD');
    });

    it('an unversioned event ID shaped like <aggregate>@<version> gets its own workflow', () => {
      const versioned = startOf(translateMessage(headerMessage(), DEFAULT_ROUTES, options));
      const lookalike = startOf(
        translateMessage(
          headerMessage(undefined, { 'event-id': 'order-123@1', 'aggregate-version': undefined }),
          DEFAULT_ROUTES,
          options,
        ),
      );
      assert.notEqual(lookalike.identity, versioned.identity);
      assert.notEqual(lookalike.workflowId, versioned.workflowId);
    });
  });
});
