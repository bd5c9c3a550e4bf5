import { strict as assert } from 'node:assert';
import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { findClaim } from '../../../src/db/entity-claim-store';
import { SEARCH_ATTRIBUTE } from '../../../src/temporal/search-attributes';
import { approveRenewal } from '../../support/domains/renewals/workflows';
import { readPublished } from '../../support/published-events';
import { createRenewalEnv, type RenewalEnv } from '../../support/renewal-env';
import { uniqueName } from '../../support/services';

const EventType = temporal.api.enums.v1.EventType;

/**
 * A workflow written as code (test/support/domains/renewals) on the real stack: each await
 * of a step is an activity with the entity's key and a recovery point, and the body branches,
 * runs steps at once, sleeps, waits for an approval with a deadline, starts a child, survives
 * a heartbeat timeout and publishes an event.
 */
describe('workflows as code on the real stack (defineWorkflow)', function () {
  this.timeout(180_000);
  let env: RenewalEnv;
  before(async () => {
    env = await createRenewalEnv();
  });
  after(async () => {
    await env.close();
  });

  it('passes the charge on, runs two steps at once, sleeps, heartbeats, starts a child, publishes', async () => {
    const id = uniqueName('sub');
    const h = await env.start({ subscriptionId: id, amountMinor: 500, remindAfter: '3 seconds' });
    const sleeping = await env.until(h, (s) => s.pausedFor !== undefined, 'the reminder sleep');
    assert.equal(sleeping.pausedFor?.label, 'reminder');
    assert.equal(sleeping.pausedFor?.kind, 'sleep');
    assert.equal((await h.describe()).typedSearchAttributes.get(SEARCH_ATTRIBUTE.step), 'sleeping');
    const result = await h.result();
    assert.equal(result.outcome, 'completed');
    const chargeId = `ch-renewal:${id}:charge`;
    assert.equal(result.chargeId, chargeId);
    assert.equal(result.receiptId, `receipt:${chargeId}`);
    assert.equal(result.eventId, `renewal:${id}:announce`);
    assert.deepEqual(await env.effects(id), {
      charge: 'charge 500',
      'seat-a': 'seat a',
      'seat-b': 'seat b',
      remind: `remind ${chargeId}`,
      sync: 'sync',
    });
    // The sync step's first attempt hung without heartbeats: its heartbeat timeout ended it.
    const history = await h.fetchHistory();
    const started = history.events!.filter(
      (e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED,
    );
    const sync = started.find((e) => e.activityTaskStartedEventAttributes?.attempt === 2);
    assert.match(
      sync?.activityTaskStartedEventAttributes?.lastFailure?.message ?? '',
      /heartbeat/i,
      'a second attempt after a heartbeat timeout',
    );
    const child = await env.client.workflow.getHandle(`${h.workflowId}/receipt`).describe();
    assert.equal(child.status.name, 'COMPLETED');
    const events = await readPublished(env.topic);
    assert.deepEqual(
      events.map((e) => [e.key, e.headers['event-id'], e.headers['event-type']]),
      [[id, `renewal:${id}:announce`, 'RenewalCharged']],
    );
    assert.deepEqual(events[0]!.value, { data: { subscriptionId: id, chargeId } });
  });

  it('runs the gift wrap only when the data asks for it', async () => {
    const id = uniqueName('sub');
    await (await env.start({ subscriptionId: id, amountMinor: 5, giftWrap: true })).result();
    assert.equal((await env.effects(id)).wrap, 'seat gift');
  });

  it('above the limit it waits for approval (Step awaiting_approval): approved, refused, expired', async () => {
    const approved = await env.start({ subscriptionId: uniqueName('sub'), amountMinor: 5000 });
    const refused = await env.start({ subscriptionId: uniqueName('sub'), amountMinor: 5000 });
    const expiring = uniqueName('sub');
    const expired = await env.start({
      subscriptionId: expiring,
      amountMinor: 5000,
      approvalTimeout: '2 seconds',
    });
    const waiting = await env.until(approved, (s) => s.pausedFor !== undefined, 'the approval');
    assert.equal(waiting.pausedFor?.kind, 'signal');
    assert.equal(
      (await approved.describe()).typedSearchAttributes.get(SEARCH_ATTRIBUTE.step),
      'awaiting_approval',
    );
    await env.until(refused, (s) => s.pausedFor !== undefined, 'the approval');
    await approved.signal(approveRenewal, { approved: true, by: 'ada' });
    await refused.signal(approveRenewal, { approved: false, by: 'grace' });
    assert.equal((await approved.result()).outcome, 'completed');
    const no = await refused.result();
    assert.equal(no.outcome, 'refused');
    assert.match(no.reason ?? '', /refused by grace/);
    const late = await expired.result();
    assert.equal(late.outcome, 'expired');
    assert.deepEqual(await env.effects(expiring), {}, 'nothing charged without approval');
    const claim = await findClaim(env.db.pool, { domain: 'renewals', entityId: expiring });
    assert.equal(claim?.settled, 'expired');
  });

  it("Temporal's cancel while it sleeps refunds by the charge's ID and frees both seats", async () => {
    const id = uniqueName('sub');
    const h = await env.start({ subscriptionId: id, amountMinor: 700, remindAfter: '1 hour' });
    await env.until(h, (s) => s.pausedFor?.label === 'reminder', 'the reminder sleep');
    await h.cancel();
    const err = await h.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof WorkflowFailedError && err.cause instanceof CancelledFailure);
    const chargeId = `ch-renewal:${id}:charge`;
    assert.deepEqual(await env.effects(id), {
      charge: 'charge 700',
      'seat-a': 'seat a',
      'seat-b': 'seat b',
      'free-a': 'free a',
      'free-b': 'free b',
      refund: `refund ${chargeId}`,
    });
  });
});
