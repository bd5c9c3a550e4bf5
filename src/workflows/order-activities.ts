// Activity proxies of the order workflows, declared once and grouped by retry class. Budgets
// are explicit: when one is spent, the workflow parks in needs_attention instead of guessing;
// transient provider causes get a fast phase here and a slow phase in the workflow.
import { patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { FAILURE_TYPES } from '../activities/failure-types';

/** Failure types that end a step for business reasons (never retried, never parked). */
export const BUSINESS_FAILURES = [FAILURE_TYPES.outOfStock, FAILURE_TYPES.paymentDeclined] as const;

/** Failures that retrying cannot fix: a client bug (422) or a rejected request (4xx). */
const BUG_FAILURES = [FAILURE_TYPES.idempotencyKeyReused, FAILURE_TYPES.providerRequestRejected];

/**
 * Our own Postgres (inventory): fast, local, transactional. A short budget (about 3 s of
 * backoff) because a database that stays down needs an operator, not more attempts.
 */
/** Our own database's budget, for its regular and local activities alike. */
const OWN_DB_BUDGET = {
  startToCloseTimeout: '10 seconds',
  retry: {
    initialInterval: '200 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '2 seconds',
    maximumAttempts: 5,
    nonRetryableErrorTypes: [FAILURE_TYPES.outOfStock],
  },
};

export const ownDb =
  proxyActivities<
    Pick<
      Activities,
      'reserveInventory' | 'releaseInventory' | 'claimCancelledOrder' | 'findOrderWorkflow'
    >
  >(OWN_DB_BUDGET);

/**
 * The claim and reservation (our own database, not a foreign call) as a local activity: run by
 * the worker inside the workflow task that schedules it, recorded as a marker, so it costs no
 * activity task round trip on the server. Safe to re-execute (a worker dying before the
 * workflow task completes runs it again): the claim and the reservation are idempotent by the
 * order's key. Same budget as ownDb.
 */
const ownDbLocal = proxyLocalActivities<Pick<Activities, 'reserveInventory'>>(OWN_DB_BUDGET);

/**
 * Runs recorded before the reservation was a local activity scheduled it as a regular one;
 * they replay that way.
 */
export const LOCAL_RESERVE_PATCH = 'reserve-as-local-activity';

/**
 * The owner's settlement of its order claim (completed, rejected, declined, cancelled): one
 * UPDATE, as a local activity (a marker in the workflow task that ends the order, no activity
 * task round trip). Our own database being down is the environment's fault, not the order's:
 * it retries until the database answers (the order stays at its last step meanwhile) instead
 * of failing an order whose effects are all done.
 */
const settleLocal = proxyLocalActivities<Pick<Activities, 'settleOrder'>>({
  startToCloseTimeout: '10 seconds',
  retry: {
    initialInterval: '200 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '5 seconds',
    // No maximumAttempts: unlimited, until the database answers.
  },
});

/**
 * Runs recorded before the owner settled its claim end without that local activity; they
 * replay that way (src/workflows/order-fulfillment.ts).
 */
export const SETTLE_CLAIM_PATCH = 'settle-order-claim';

/** Attempts of the fast phase: the activity's own retries (0.5 + 1 + 2 s of backoff). */
export const FAST_PHASE_ATTEMPTS = 4;
/**
 * Pause between rounds of the slow phase (a durable timer in the workflow, then another fast
 * phase), as long as the transient window lasts. Long enough not to hammer a provider that is
 * down, short enough that orders resume within half a minute of its return. Also outlasts the
 * sandbox's 10 s lease, so a retry that met 409 gets the first request's stored response.
 */
export const SLOW_PHASE_INTERVAL_MS = 30_000;

/**
 * Foreign effects over HTTP (charge, refund, email): the fast phase of the "fast/slow
 * retries" pattern. A few attempts in a few seconds absorb a blip; when they fail on a
 * transient cause the workflow waits SLOW_PHASE_INTERVAL_MS on a timer and runs another fast
 * phase (one activity, a handful of events per round: history stays small over an hour).
 * A provider's Retry-After arrives as the failure's nextRetryDelay. startToClose exceeds the
 * 5 s HTTP timeout.
 */
export const foreign = proxyActivities<
  Pick<Activities, 'chargePayment' | 'refundPayment' | 'sendEmail'>
>({
  startToCloseTimeout: '15 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '4 seconds',
    maximumAttempts: FAST_PHASE_ATTEMPTS,
    nonRetryableErrorTypes: [FAILURE_TYPES.paymentDeclined, ...BUG_FAILURES],
  },
});

type Input<K extends keyof Activities> = Parameters<Activities[K]>[0];

/**
 * The calls the order workflows make, each with a one-line summary for the Web UI that names
 * the order and the idempotency key, so an operator can look the effect up at the provider.
 */
export const orderActivities = {
  reserve: (input: Input<'reserveInventory'>) => {
    const summary = `reserve ${input.items.length} line(s) of ${input.orderId} · ${input.key}`;
    return patched(LOCAL_RESERVE_PATCH)
      ? ownDbLocal.reserveInventory.executeWithOptions({ summary }, [input])
      : ownDb.reserveInventory.executeWithOptions({ summary }, [input]);
  },
  release: (input: Input<'releaseInventory'>) =>
    ownDb.releaseInventory.executeWithOptions(
      { summary: `release ${input.reservationKey} · ${input.key}` },
      [input],
    ),
  settle: (input: Input<'settleOrder'>) =>
    settleLocal.settleOrder.executeWithOptions(
      { summary: `settle order ${input.orderId} as ${input.settled} for ${input.workflowId}` },
      [input],
    ),
  claimCancelled: (input: Input<'claimCancelledOrder'>) =>
    ownDb.claimCancelledOrder.executeWithOptions(
      { summary: `claim cancelled order ${input.orderId} for ${input.workflowId}` },
      [input],
    ),
  findOrderWorkflow: (input: Input<'findOrderWorkflow'>) =>
    ownDb.findOrderWorkflow.executeWithOptions(
      { summary: `find the owner of order ${input.orderId}` },
      [input],
    ),
  charge: (input: Input<'chargePayment'>) =>
    foreign.chargePayment.executeWithOptions(
      {
        summary: `charge ${input.amountMinor} ${input.currency} for ${input.orderId} · ${input.key}`,
      },
      [input],
    ),
  refund: (input: Input<'refundPayment'>) =>
    foreign.refundPayment.executeWithOptions(
      { summary: `refund order ${input.orderId} · ${input.key}` },
      [input],
    ),
  email: (input: Input<'sendEmail'>) =>
    foreign.sendEmail.executeWithOptions(
      { summary: `confirmation email for ${input.orderId} · ${input.key}` },
      [input],
    ),
};
