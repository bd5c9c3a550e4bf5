// The types of a saga's step table (src/workflows/saga.ts). Pure: types only.
import type { QueryDefinition, SignalDefinition } from '@temporalio/workflow';
import type { ClaimCandidate, ClaimRecord, ClaimVerdict } from '../db/entity-claim';
import type { EventMeta } from '../events/workflow-input';
import type { RetryClass, StepTimeouts } from './retry-classes';
import type { CancelRequest, SagaStatus } from './saga-status';

/** A domain's activities: plain async functions taking one input object. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any input: each step types its own
export type ActivityMap = Record<string, (input: any) => Promise<unknown>>;

/** What a step's input, summary and hooks are built from. */
export interface StepContext<TData> {
  /** The validated event data the run was started with. */
  data: TData;
  event: EventMeta;
  entityId: string;
  /** This step's idempotency key: `<kind>:<entityId>:<step>`. */
  key: string;
  /** Every step's and compensation's key. */
  keys: Readonly<Record<string, string>>;
  /** This run's workflow ID. */
  workflowId: string;
  /** This run as the claim judges it (for a step that claims inside its own transaction). */
  claimant: ClaimCandidate;
  /**
   * Set while compensating on behalf of the run that owns the entity (this run is a duplicate
   * that received a cancellation, and the owner has closed): act for that run.
   */
  onBehalfOf?: { workflowId: string; runId?: string };
}

/** One activity call of a step or a compensation. */
export interface CallSpec<TData, A extends ActivityMap, K extends keyof A> {
  /**
   * The activity it calls, by name (typed from the domain's activities).
   * @example activity: 'chargePayment'
   */
  activity: K;
  /**
   * `foreign` (a provider: transient causes wait, fast then slow, then park; anything else
   * parks) or `own` (our own database: a short budget, then park).
   * @example retry: 'foreign'
   */
  retry: RetryClass;
  /**
   * The activity's input, from the event data and the step's key.
   * @example input: ({ data, key }) => ({ key, orderId: data.orderId, amountMinor: data.totalMinor })
   */
  input: (ctx: StepContext<TData>) => Parameters<A[K]>[0];
  /**
   * The Web UI's one line for the call. Default: `<step> <kind> <id> · <key>`.
   * @example summary: (input) => `charge ${input.amountMinor} for ${input.orderId} · ${input.key}`
   */
  summary?: (input: Parameters<A[K]>[0]) => string;
  /**
   * Run as a local activity (a marker in the workflow task, no activity task round trip):
   * only for an `own` call that is safe to run again. Asked at each call. Default: never.
   * @example local: () => true
   */
  local?: () => boolean;
  /**
   * The provider it calls, by a name of your choosing: its activity runs on the provider's own
   * task queue, where PROVIDER_RATE_LIMITS' limit for it holds across every worker. Default:
   * none (the workflow's task queue, no limit).
   * @example provider: 'mail'
   */
  provider?: string;
}

/** A call of any of the domain's activities, typed by the one it names. */
export type AnyCall<TData, A extends ActivityMap> = {
  [K in keyof A]: CallSpec<TData, A, K>;
}[keyof A];

/** A compensation: a step of its own (own name, own key) that undoes one step. */
export type Compensation<TData, A extends ActivityMap> = AnyCall<TData, A> & {
  /**
   * The compensation's name: its key is `<kind>:<entityId>:<name>`.
   * @example name: 'refund'
   */
  name: string;
};

/** One row of a saga's step table. */
export type SagaStep<TData, A extends ActivityMap, TStatus = SagaStatus> = {
  [K in keyof A]: CallSpec<TData, A, K> &
    StepTimeouts &
    RowCondition<TData> & {
      /**
       * The step's name: its key is `<kind>:<entityId>:<name>`, its recovery point says it.
       * @example name: 'charge'
       */
      name: string;
      /**
       * What the status says while it runs. Default: the name.
       * @example running: 'charging'
       */
      running?: string;
      /**
       * Business failures (ApplicationFailure types) that end the run with an outcome instead
       * of parking: the run unwinds what was done and settles its claim with the outcome.
       * @example failures: { PaymentDeclined: 'declined' }
       */
      failures?: Readonly<Record<string, string>>;
      /**
       * Undoes the step when a later step fails for a business reason or the run is cancelled.
       * Pushed on the compensation stack before the call (its outcome may be unknown).
       * @example compensate: { name: 'refund', activity: 'refundPayment', retry: 'foreign', input: ({ data, key }) => ({ key, orderId: data.orderId }) }
       */
      compensate?: Compensation<TData, A>;
      /**
       * Reads the step's result into the status (the query's answer).
       * @example done: (result, status) => { status.chargeId = result.chargeId }
       */
      done?: (result: Awaited<ReturnType<A[K]>>, status: TStatus) => void;
    };
}[keyof A];

/** When a row runs. */
export interface RowCondition<TData> {
  /**
   * Runs the row only for some runs (asked when the table reaches it). Default: every run.
   * @example when: ({ data }) => data.giftWrap === true
   */
  when?: (ctx: StepContext<TData>) => boolean;
}

/**
 * A row that publishes an event: the step's key is its event ID and the entity its record
 * key, so a consumer keyed by event ID (a onceflow bridge) acts on it once however often the
 * step runs. The topic is the domain's (`defineDomain({ publishes })`).
 */
export interface PublishStep<TData, TStatus = SagaStatus> extends RowCondition<TData> {
  /**
   * The step's name: the event ID is `<kind>:<entityId>:<name>`.
   * @example name: 'announce'
   */
  name: string;
  /**
   * The event type it publishes.
   * @example publish: 'OrderFulfilled'
   */
  publish: string;
  /**
   * The event's data, from the run's context and status.
   * @example data: ({ data }, status) => ({ orderId: data.orderId, chargeId: status.chargeId })
   */
  data: (ctx: StepContext<TData>, status: TStatus) => object;
  /**
   * The provider it publishes through (rate limited like any other: PROVIDER_RATE_LIMITS).
   * Default: none.
   * @example provider: 'kafka'
   */
  provider?: string;
}

/** A row of the table: a call of one of the domain's activities, or a publication. */
export type SagaRow<TData, A extends ActivityMap, TStatus = SagaStatus> =
  SagaStep<TData, A, TStatus> | PublishStep<TData, TStatus>;

/** The owner's settlement call: how the entity ended, recorded on its claim. */
export type SettleCall<TData, A extends ActivityMap> = {
  [K in keyof A]: {
    /** @example activity: 'settleOrder' */
    activity: K;
    /** @example input: (ctx, settled) => ({ orderId: ctx.entityId, settled, ...ctx.claimant }) */
    input: (ctx: StepContext<TData>, settled: string) => Parameters<A[K]>[0];
    /** @example summary: (input) => `settle order ${input.orderId} as ${input.settled}` */
    summary?: (input: Parameters<A[K]>[0]) => string;
  };
}[keyof A];

/** What a claiming step's result says: this run owns the entity (reopened by a reset?), or another does. */
export type ClaimOutcome =
  | { kind: 'owner'; reopened?: { settled: string; settledAt: string } }
  | Exclude<ClaimVerdict<ClaimRecord>, { kind: 'owner' }>;

/** How a step that claims inside its own transaction tells its verdict. */
export interface InStepClaim<TData, A extends ActivityMap> {
  /**
   * The step whose activity claims the entity in its own transaction (orders: `reserve`, the
   * claim and the reservation commit together, so out of stock rolls the claim back).
   * @example step: 'reserve'
   */
  step: string;
  /**
   * The claim verdict in that step's result; undefined reads as the owner's.
   * @example verdict: (r) => (r.verdict === 'duplicate' ? { kind: 'duplicate', claim: r.owner } : undefined)
   */
  verdict: (result: never, ctx: StepContext<TData>) => ClaimOutcome | undefined;
  /**
   * A run cancelled before its claiming step claims the entity as cancelled, or learns the
   * owner: the call's result is the verdict.
   * @example cancelled: { activity: 'claimCancelledOrder', retry: 'own', input: ({ data, claimant }) => ({ orderId: data.orderId, ...claimant }) }
   */
  cancelled: AnyCall<TData, A>;
  /**
   * The owner's settlement: one local activity at the end of the run (a business failure of
   * the claiming step settles too: its call must then create the claim).
   * @example settle: { activity: 'settleOrder', input: (ctx, settled) => ({ orderId: ctx.entityId, settled, ...ctx.claimant }) }
   */
  settle: SettleCall<TData, A>;
}

/** A saga: the entity it acts on once, its step table, its claim. */
export interface SagaDefinition<TData, A extends ActivityMap, TExtra extends object = object> {
  /**
   * The workflow type: the name it is exported under and routes start it by (a client may
   * start it by the function, which carries this name).
   * @example name: 'giftCard'
   */
  name: string;
  /**
   * The domain it belongs to: the same name as its defineDomain (claims are kept under it).
   * @example domain: 'giftcards'
   */
  domain: string;
  /**
   * The entity acted on once: its kind (first part of every key, the word for it in the Web
   * UI), its ID in the data, and its customer (the CustomerId search attribute), if any.
   * @example entity: { kind: 'card', id: (d) => d.cardId }
   */
  entity: {
    kind: string;
    id: (data: TData) => string;
    customerId?: (data: TData) => string | undefined;
  };
  /**
   * The step table, top to bottom. Each step's compensation is pushed before it runs and
   * unwound in reverse on a business failure or a cancellation.
   * @example steps: [issue, notify]
   */
  steps: ReadonlyArray<SagaRow<TData, A, SagaStatus & TExtra>>;
  /**
   * How the entity is claimed. Default: the engine claims it with a local activity before the
   * first step (`claimEntity`), and settles it with another at the end (`settleClaim`).
   * @example claim: { step: 'reserve', verdict, cancelled, settle }
   */
  claim?: InStepClaim<TData, A>;
  /**
   * The ops CLI's group for the domain (`npx onceflow <cli> retry -- <id>`). Default: `domain`.
   * @example cli: 'orders'
   */
  cli?: string;
  /**
   * Who each step talks to, as an operator would name it. Default: `the <activity> call`.
   * @example counterpart: { charge: 'the payment provider' }
   */
  counterpart?: Readonly<Record<string, string>>;
  /**
   * The cancellation signal and status query. Default: `cancel` and `status`.
   * @example channels: { cancel: cancelOrderSignal, status: orderStatusQuery }
   */
  channels?: {
    cancel?: SignalDefinition<[CancelRequest]>;
    status?: QueryDefinition<SagaStatus>;
  };
  /**
   * Fields of the domain's own beside the engine's status.
   * @example status: (d) => ({ orderId: d.orderId })
   */
  status?: (data: TData) => TExtra;
  /**
   * The domain's own fields of the workflow result, from the status. Default: `entityId`.
   * @example result: (s) => ({ orderId: s.orderId, chargeId: s.chargeId })
   */
  result?: (status: SagaStatus & TExtra) => object;
}
