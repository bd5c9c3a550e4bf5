import { strict as assert } from 'node:assert';
import { failureBody } from '../../../src/activities/failure-body';
import { loadConfig } from '../../../src/config';
import { digestOf } from '../../../src/kafka-bridge/log-digest';
import { DEFAULT_ROUTES } from '../../../src/domains';
import { translateMessage, type StartCommand } from '../../../src/events/translate';
import { customerKeywordFor } from '../../../src/temporal/customer-keyword';
import { generateKeyLine } from '../../../src/config/key-ring';
import { headerMessage, orderPlacedData } from '../events/fixtures';

describe('what Temporal stores unencrypted is minimised (issue 17)', () => {
  const keys = generateKeyLine('k');

  it('CustomerId is a keyed hash by default, stable for equal IDs; a setting keeps it plain', () => {
    const hash = customerKeywordFor(loadConfig({ ONCEFLOW_ENCRYPTION_KEYS: keys }))!;
    assert.match(hash('cus_42'), /^c_[0-9a-f]{40}$/);
    assert.equal(hash('cus_42'), hash('cus_42'));
    assert.notEqual(hash('cus_42'), hash('cus_43'));
    const other = customerKeywordFor(
      loadConfig({ ONCEFLOW_ENCRYPTION_KEYS: generateKeyLine('o') }),
    )!;
    assert.notEqual(other('cus_42'), hash('cus_42'), 'keyed: another key, another value');
    const pinned = Buffer.alloc(32, 7).toString('base64');
    const a = customerKeywordFor(
      loadConfig({ ONCEFLOW_ENCRYPTION_KEYS: keys, ONCEFLOW_SEARCH_HMAC_KEY: pinned }),
    )!;
    const b = customerKeywordFor(
      loadConfig({
        ONCEFLOW_ENCRYPTION_KEYS: generateKeyLine('n'),
        ONCEFLOW_SEARCH_HMAC_KEY: pinned,
      }),
    )!;
    assert.equal(a('cus_42'), b('cus_42'), 'a pinned HMAC key survives encryption-key rotation');
    assert.equal(
      customerKeywordFor(
        loadConfig({ ONCEFLOW_ENCRYPTION_KEYS: keys, CUSTOMER_ID_SEARCH_ATTRIBUTE: 'plain' }),
      ),
      undefined,
    );
  });

  it('the bridge sets the hashed CustomerId', () => {
    const customerKeyword = customerKeywordFor(loadConfig({ ONCEFLOW_ENCRYPTION_KEYS: keys }))!;
    const t = translateMessage(
      headerMessage(orderPlacedData({ customerId: 'cus_secret' })),
      DEFAULT_ROUTES,
      { maxBytes: 1 << 20, customerKeyword },
    ) as StartCommand;
    assert.equal(t.kind, 'start');
    assert.equal(t.searchAttributes.CustomerId, customerKeyword('cus_secret'));
    assert.ok(!JSON.stringify(t.searchAttributes).includes('cus_secret'));
  });

  it('provider bodies in failures lose personal fields and long strings', () => {
    const scrubbed = failureBody({
      error: { type: 'card_declined', message: 'x'.repeat(1000) },
      email: 'p@example.com',
      request: { to: 'p@example.com', subject: 'Your order', body: 'Hello Ann', customerId: 'c1' },
    });
    const text = JSON.stringify(scrubbed);
    assert.ok(!text.includes('p@example.com'));
    assert.ok(!text.includes('Hello Ann'));
    assert.ok(!text.includes('"c1"'));
    assert.ok(text.includes('card_declined'));
    assert.ok(text.length < 400, text);
  });

  it('log digests carry size and hash, never the value', () => {
    const body = '{"email":"p@example.com", oops';
    const d = digestOf(body)!;
    assert.equal(d.bytes, Buffer.byteLength(body));
    assert.match(d.sha256, /^[0-9a-f]{16}$/);
    assert.ok(!JSON.stringify(d).includes('example.com'));
    assert.equal(digestOf(null), undefined);
  });
});
