import { strict as assert } from 'node:assert';
import { resolve } from 'node:path';
import { DOMAINS } from '../../../src/domains';
import { orders } from '../../../src/domains/orders';
import { payouts } from '../../../src/domains/payouts';
import { defineDomain, DomainDefinitionError } from '../../../src/engine/define-domain';
import { findCommand, splitDomainsModule } from '../../../src/ops/main';
import {
  findOpsDomain,
  loadDomainsModule,
  opsDomainOf,
  opsDomainsOf,
} from '../../../src/ops/ops-domain';
import { listOrders } from '../../../src/ops/orders-commands';
import { UsageError } from '../../../src/ops/output';
import { runOps } from '../../support/ops-cli';

const FIXTURES = resolve(__dirname, 'fixtures');

describe('ops CLI: the domains it serves come from the registry', () => {
  it('a saga on the defaults: its first route’s workflow, `cancel`, `status`', () => {
    assert.deepEqual(opsDomainOf(payouts), {
      name: 'payouts',
      entity: 'payout',
      workflowType: 'payout',
      cancelSignal: 'cancel',
      statusQuery: 'status',
    });
  });

  it('orders name their own cancel signal and status query (defineDomain `ops`)', () => {
    assert.deepEqual(opsDomainOf(orders), {
      name: 'orders',
      entity: 'order',
      workflowType: 'orderFulfillment',
      cancelSignal: 'cancelOrder',
      statusQuery: 'orderStatus',
    });
  });

  it('an unknown domain is a usage error naming every registered one', () => {
    const known = opsDomainsOf(DOMAINS);
    assert.equal(findOpsDomain(known, 'payouts').workflowType, 'payout');
    assert.throws(
      () => findOpsDomain(known, 'refunds'),
      (err: Error) =>
        err instanceof UsageError &&
        /unknown domain or command: refunds \(registered domains: orders, payouts, carts;/.test(
          err.message,
        ),
    );
  });

  it('a domain named like a CLI command, or twice, is refused', () => {
    const dlq = { ...payouts, name: 'dlq' };
    assert.throws(() => opsDomainsOf([dlq]), /domain dlq: the name is an ops CLI command/);
    assert.throws(() => opsDomainsOf([payouts, payouts]), DomainDefinitionError);
  });

  it('defineDomain refuses an ops.workflow that none of its routes starts', () => {
    assert.throws(
      () => defineDomain({ ...payouts, ops: { workflow: 'payot' } }),
      /ops\.workflow payot is not the workflow of any of its routes/,
    );
    const explicit = defineDomain({ ...payouts, ops: { workflow: 'payoutCancellation' } });
    assert.equal(opsDomainOf(explicit).workflowType, 'payoutCancellation');
  });

  it('orders keep their own commands; another domain gets the generic ones', () => {
    const known = opsDomainsOf(DOMAINS);
    assert.equal(findCommand(known, 'orders', 'list'), listOrders);
    assert.notEqual(findCommand(known, 'payouts', 'list'), listOrders);
    for (const verb of ['list', 'show', 'retry', 'resolve', 'cancel', 'pause', 'resume'])
      assert.equal(typeof findCommand(known, 'payouts', verb), 'function', verb);
    assert.throws(
      () => findCommand(known, 'payouts', 'frob'),
      /unknown command: payouts frob \(payouts takes list, show, retry, resolve, cancel, pause, resume\)/,
    );
    assert.equal(typeof findCommand(known, 'dlq', 'list'), 'function');
    // A team's own domain called orders is not this repository's: the generic commands.
    const theirs = opsDomainsOf([{ ...payouts, name: 'orders' }]);
    assert.notEqual(findCommand(theirs, 'orders', 'list'), listOrders);
    assert.throws(() => findCommand(known, 'constructor', 'list'), /unknown domain or command/);
    assert.throws(() => findCommand(known, 'payouts', 'constructor'), /unknown command/);
  });
});

describe('ops CLI: --domains-module, a team’s own domains', () => {
  it('is read in front of the command, in both spellings', () => {
    assert.deepEqual(splitDomainsModule(['--domains-module', 'd.ts', 'giftcards', 'list']), {
      modulePath: 'd.ts',
      rest: ['giftcards', 'list'],
    });
    assert.deepEqual(splitDomainsModule(['--domains-module=d.ts', 'x']), {
      modulePath: 'd.ts',
      rest: ['x'],
    });
    assert.deepEqual(splitDomainsModule(['orders', 'list']), { rest: ['orders', 'list'] });
    assert.throws(() => splitDomainsModule(['--domains-module']), UsageError);
    assert.throws(() => splitDomainsModule(['--domains-module', '--json']), UsageError);
  });

  it('loads the module’s DOMAINS; a module without a domain list is refused', () => {
    const [giftcards] = loadDomainsModule(resolve(FIXTURES, 'giftcard-domains.ts'));
    assert.equal(opsDomainOf(giftcards!).workflowType, 'giftCard');
    assert.throws(
      () => loadDomainsModule(resolve(FIXTURES, 'not-domains.ts')),
      /export DOMAINS \(or domains, or a default\) as a non-empty array of defineDomain results/,
    );
    assert.throws(() => loadDomainsModule('no/such/file.ts'), /cannot load .*file\.ts/);
  });

  it('the CLI serves exactly the module’s domains (exit 2 naming them otherwise)', async () => {
    const module = resolve(FIXTURES, 'giftcard-domains.ts');
    const other = await runOps(['--domains-module', module, 'payouts', 'list']);
    assert.equal(other.code, 2);
    assert.match(
      other.stderr,
      /unknown domain or command: payouts \(registered domains: giftcards;/,
    );
    const verb = await runOps(['--domains-module', module, 'giftcards', 'frob']);
    assert.equal(verb.code, 2);
    assert.match(verb.stderr, /giftcards takes list, show, retry, resolve, cancel, pause, resume/);
    const missing = await runOps(['--domains-module']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--domains-module needs a FILE/);
  });
});
