import { strict as assert } from 'node:assert';
import {
  summarizeOrderCancelled,
  summarizeOrderPlaced,
} from '../../../src/domains/orders/order-summary';
import type { StartCommand } from '../../../src/events/translate';
import { detailsOf } from '../../../src/kafka-bridge/workflow-starter';
import { currentDetailsOf } from '../../../src/domains/orders/workflows/order-details';
import type { OrderStatus } from '../../../src/domains/orders/workflows/order-definitions';
import { testConfig } from '../../support/services';

/**
 * What the Temporal Web UI makes of the summaries and details onceflow writes, asked of the
 * UI itself: it renders user metadata as Markdown on its own `/render` page (raw HTML and bare
 * links included), the same page its sandboxed frames load. Every hostile value a producer,
 * a provider or a forged signal can put there must come out as text: no link, image, tag,
 * emphasis or heading of its making, and the text itself unchanged.
 */
describe('Web UI Markdown stays inert (issue 23, the dev server UI renders it)', function () {
  this.timeout(60_000);
  const uiUrl = testConfig().temporal.uiUrl;

  /** The `<main>` of the UI's rendering of `markdown`. */
  async function render(markdown: string): Promise<string> {
    const res = await fetch(`${uiUrl}/render?content=${encodeURIComponent(markdown)}&theme=light`);
    assert.equal(res.status, 200);
    const html = await res.text();
    const main = /<main>([\s\S]*)<\/main>/.exec(html)?.[1];
    assert.ok(main !== undefined, html.slice(0, 500));
    return main;
  }

  /** Elements of one tag in rendered HTML. */
  const count = (html: string, tag: string) =>
    (html.match(new RegExp(`<${tag}[\\s>]`, 'g')) ?? []).length;

  /** The text a reader sees: tags dropped, entities decoded. */
  const textOf = (html: string) =>
    html
      .replace(/<[^>]*>/g, '')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&#34;|&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&');

  /** The text of each code span, in order. */
  const codeSpans = (html: string) =>
    [...html.matchAll(/<code>([\s\S]*?)<\/code>/g)].map((m) => textOf(m[1]!));

  const reason =
    'changed my mind\n\n# Refund NOW\n* [click here](https://evil.example/pay) ' +
    '<img src=x onerror=alert(1)> <b>bold</b> **strong** _em_ ~~gone~~ `code` ' +
    'https://evil.example/raw mail@evil.example &amp; | a | b |\n|---|---|';
  const shownReason = reason.replace(/\n/g, '\\n');

  it('a cancellation summary with newlines, markdown, HTML and links renders as its text', async () => {
    const html = await render(summarizeOrderCancelled({ orderId: 'o-<i>1</i>', reason }));
    for (const tag of ['a', 'img', 'b', 'strong', 'em', 'del', 'h1', 'li', 'table', 'i'])
      assert.equal(count(html, tag), 0, `<${tag}> in ${html}`);
    assert.equal(count(html, 'p'), 1, html);
    assert.equal(textOf(html).trim(), `Cancel order o-<i>1</i> · ${shownReason}`);
    assert.deepEqual(codeSpans(html), ['o-<i>1</i>', shownReason]);
  });

  it('an order summary keeps plain IDs readable and hostile ones inert', async () => {
    const html = await render(
      summarizeOrderPlaced({
        orderId: 'order_a1-b2',
        customerId: '[me](javascript:alert(1))',
        email: 'x@example.com',
        currency: 'EUR',
        items: [{ sku: 's', quantity: 2, unitPriceMinor: 1250 }],
        totalMinor: 2500,
      }),
    );
    assert.equal(count(html, 'a'), 0, html);
    assert.equal(
      textOf(html).trim(),
      'Order order_a1-b2 · 2 items · 25.00 EUR · customer [me](javascript:alert(1))',
    );
  });

  it('current details: only their own bold labels and code spans, whatever the values', async () => {
    const status = {
      orderId: '--all',
      step: 'cancelled',
      parked: { step: 'charge', since: '2026-01-01T00:00:00Z', error: reason },
      cancellation: { reason },
      outcome: 'cancelled',
      owner: { workflowId: 'OrderPlaced:e:ev``` <b>x', fingerprint: 'f', runFingerprint: 'g' },
      operatorActions: [{ action: 'cancel', by: '<script>x</script>', at: 't', reason }],
      keys: { charge: 'order:--all:charge`' },
      recoveryPoints: [],
    } as unknown as OrderStatus;
    const html = await render(currentDetailsOf(status));
    for (const tag of ['a', 'img', 'b', 'em', 'del', 'h1', 'li', 'table', 'script'])
      assert.equal(count(html, tag), 0, `<${tag}> in ${html}`);
    // One <strong> per label the details write (each paragraph starts with one), nothing more.
    const labels = currentDetailsOf(status).match(/(^|\n\n)\*\*[a-z ]+\*\*/g) ?? [];
    assert.equal(count(html, 'strong'), labels.length, html);
    const spans = codeSpans(html);
    for (const literal of [
      shownReason,
      'OrderPlaced:e:ev``` <b>x',
      'order:--all:charge`',
      '<script>x</script>',
      'npx onceflow orders retry -- --all',
      '--all',
    ])
      assert.ok(spans.includes(literal), `${literal} not one span of ${JSON.stringify(spans)}`);
  });

  it('static details: an event ID with backticks stays one code span', async () => {
    const eventId = 'ev`](https://evil.example) <b>x</b> ``';
    const html = await render(
      detailsOf(
        {
          eventType: 'OrderPlaced',
          eventId,
          identity: `e:${eventId}`,
          fingerprint: 'fp',
        } as unknown as StartCommand,
        { topic: 'orders', partition: 0, offset: '7' },
      ),
    );
    for (const tag of ['a', 'b']) assert.equal(count(html, tag), 0, `<${tag}> in ${html}`);
    assert.deepEqual(codeSpans(html), [eventId, `e:${eventId}`, 'fp']);
  });
});
