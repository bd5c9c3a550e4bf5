// The types of a code-first workflow (define-workflow.ts): its declared steps, the context its
// body receives, and its definition. Pure: types only.
import type { SignalDefinition } from '@temporalio/workflow';
import type { Duration, UpdateDefinition } from '@temporalio/common';
import type { PublishEventResult } from '../activities/publish-contract';
import type { EventMeta } from '../events/workflow-input';
import type { ClaimCandidate } from '../db/entity-claim';
import type { RetryClass, StepTimeouts } from './retry-classes';
import type { SagaStatus } from './saga-status';
import type { ActivityMap, InStepClaim, SagaDefinition, StepContext } from './saga-types';
import type { WaitOptions, WaitResult } from './run-waits';

/** An activity's input without `key`: the engine adds the step's key. */
export type StepInput<I> = I extends object ? Omit<I, 'key'> : I;

/** What a compensation's input is built from: the run, and the step's item, input and result. */
export type CompensationContext<TData, I, R> = StepContext<TData> & {
  /** The item of the call it undoes (`steps.x.each(item, …)`); absent for a single call. */
  item?: string;
  /** The step's input; absent when compensating on behalf of a closed owner. */
  input?: StepInput<I>;
  /** The step's result; absent while unknown (the step failed, timed out or never ran). */
  result?: R;
};

/** How one step is undone: a step of its own (own name, own key), pushed before the step runs. */
export type CompensationDeclaration<TData, A extends ActivityMap, I, R> = {
  [C in keyof A]: {
    /**
     * Its name: its key is `<kind>:<entityId>:<name>`.
     * @example name: 'refund'
     */
    name: string;
    /** @example activity: 'refundPayment' */
    activity: C;
    /** @example retry: 'foreign' */
    retry: RetryClass;
    /**
     * Its input, from the step's input and result (when known) and the run.
     * @example input: ({ data, result }) => ({ orderId: data.orderId, chargeId: result?.chargeId })
     */
    input: (ctx: CompensationContext<TData, I, R>) => StepInput<Parameters<A[C]>[0]>;
    /** @example summary: (i) => `refund ${i.orderId} · ${i.key}` */
    summary?: (input: Parameters<A[C]>[0]) => string;
    /**
     * The provider it calls (its task queue, its PROVIDER_RATE_LIMITS limit). Default: none.
     * @example provider: 'card'
     */
    provider?: string;
  };
}[keyof A];

/** A step declared once, called in the body as `steps.<name>(input)`. */
export type ActivityStepDeclaration<TData, A extends ActivityMap> = {
  [K in keyof A]: StepTimeouts & {
    /**
     * The activity it calls (typed from the domain's activities).
     * @example activity: 'chargePayment'
     */
    activity: K;
    /**
     * `foreign` (a provider: transient causes wait, then park) or `own` (our database).
     * @example retry: 'foreign'
     */
    retry: RetryClass;
    /**
     * What the status says while it runs. Default: the step's name.
     * @example running: 'charging'
     */
    running?: string;
    /**
     * This step's business failures (ApplicationFailure types) and the outcome each ends
     * the run with, unless the body catches its StepFailure. Not retried.
     * @example failures: { PaymentDeclined: 'declined' }
     */
    failures?: Readonly<Record<string, string>>;
    /**
     * How it is undone on a later business failure or a cancellation.
     * @example compensate: { name: 'refund', activity: 'refundPayment', retry: 'foreign', input: ({ data }) => ({ orderId: data.orderId }) }
     */
    compensate?: CompensationDeclaration<TData, A, Parameters<A[K]>[0], Awaited<ReturnType<A[K]>>>;
    /**
     * Run as a local activity (only for an `own` call safe to run again). Default: false.
     * @example local: true
     */
    local?: boolean;
    /** @example summary: (i) => `charge ${i.amountMinor} · ${i.key}` */
    summary?: (input: Parameters<A[K]>[0]) => string;
    /**
     * The provider it calls, by a name of your choosing: its activity runs on the provider's
     * own task queue, where PROVIDER_RATE_LIMITS' limit for it holds across every worker.
     * Default: none (the workflow's task queue, no limit).
     * @example provider: 'mail'
     */
    provider?: string;
  };
}[keyof A];

/** A child workflow the body starts by name (`child(name, …)`), and how its work is undone. */
export interface ChildDeclaration<TData, A extends ActivityMap> {
  /**
   * How the child's work is undone when this run unwinds after the child completed (or was
   * terminated or timed out: its work may exist); a child that failed or was cancelled ended
   * by its own rules. An activity of this run, with the child's result when known. Default: none.
   * @example compensate: { name: 'recall', activity: 'recallShipment', retry: 'foreign', input: ({ result }) => ({ shipmentId: result?.shipmentId }) }
   */
  compensate?: CompensationDeclaration<TData, A, unknown, unknown>;
}

/** A step that publishes an event (its key is the event ID, the entity its record key). */
export interface PublishDeclaration {
  /**
   * The event type; the domain's `publishes` names its topic.
   * @example publish: 'RenewalCharged'
   */
  publish: string;
  /**
   * The provider it publishes through (its task queue, its limit). Default: none.
   * @example provider: 'kafka'
   */
  provider?: string;
}

export type StepDeclaration<TData, A extends ActivityMap> =
  ActivityStepDeclaration<TData, A> | PublishDeclaration;

/** A call of a step: input without `key`, the activity's result back. */
type StepCallOf<I, R> =
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- "no field is required"
  {} extends StepInput<I>
    ? (input?: StepInput<I>) => Promise<R>
    : (input: StepInput<I>) => Promise<R>;

/** One item's call of a repeated step: its item ID first, then the input. */
type EachCallOf<I, R> =
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- "no field is required"
  {} extends StepInput<I>
    ? (item: string, input?: StepInput<I>) => Promise<R>
    : (item: string, input: StepInput<I>) => Promise<R>;

/**
 * How the body calls a declared step: `steps.x(input)` once per run (key
 * `<kind>:<entityId>:x`), or `steps.x.each(item, input)` once per item (key
 * `<kind>:<entityId>:x:<item>`, its undo likewise); a second call of either for the same
 * item is refused with a WorkflowDefinitionError naming the step.
 */
export type StepFunction<D, A extends ActivityMap> = D extends { activity: infer K }
  ? K extends keyof A
    ? StepCallOf<Parameters<A[K]>[0], Awaited<ReturnType<A[K]>>> & {
        each: EachCallOf<Parameters<A[K]>[0], Awaited<ReturnType<A[K]>>>;
      }
    : never
  : ((data: object) => Promise<PublishEventResult>) & {
      each: (item: string, data: object) => Promise<PublishEventResult>;
    };

/** What the body of a code-first workflow receives. */
export interface WorkflowContext<TData, A extends ActivityMap, S, TExtra extends object> {
  /** The validated event data the run was started with. */
  data: TData;
  event: EventMeta;
  entityId: string;
  workflowId: string;
  /** Every declared step's and compensation's key. */
  keys: Readonly<Record<string, string>>;
  /** This run as the claim judges it (for a step that claims inside its own transaction). */
  claimant: ClaimCandidate;
  /** The status query's answer; the domain's own fields (`status`) are the body's to set. */
  status: SagaStatus & TExtra;
  /** The declared steps: each awaits its activity (a recovery point) and returns its result. */
  steps: { [N in keyof S]: StepFunction<S[N], A> };
  /** A durable timer; shown as Step `sleeping`. @example await sleep('reminder', '14 days') */
  sleep(label: string, duration: Duration): Promise<void>;
  /**
   * Waits for a signal or an update (one argument) until the timeout: `{ timedOut: false,
   * value }` when it arrived (`value` whatever it held, `undefined` included), `{ timedOut:
   * true }` when the deadline passed first. Shown as Step `awaiting_<label>`. A signal sent
   * before the wait is kept for it.
   * @example const answer = await receive('approval', approvePayout, { timeout: '2 days' })
   */
  receive<T>(
    label: string,
    on: SignalDefinition<[T]> | UpdateDefinition<unknown, [T]>,
    options: WaitOptions<T>,
  ): Promise<WaitResult<T>>;
  /**
   * Waits as `receive` does; returns what arrived, or `undefined` when the deadline passed
   * first (or when a signal without a payload arrived: the two look the same here).
   * @deprecated Use `receive`, which tells a timeout from an answer:
   * `const answer = await receive(label, on, options)`, then `answer.timedOut`, else
   * `answer.value`. `waitFor` keeps this meaning until it is removed.
   */
  waitFor<T>(
    label: string,
    on: SignalDefinition<[T]> | UpdateDefinition<unknown, [T]>,
    options: WaitOptions<T>,
  ): Promise<T | undefined>;
  /**
   * A child workflow with the ID `<workflowId>/<name>`; cancelling this run cancels it.
   * @example const receipt = await child('receipt', 'sendReceipt', { data, event })
   */
  child<R = unknown>(name: string, workflowType: string, input: unknown): Promise<R>;
  /**
   * A checkpoint of a long-lived loop: once the run's history passes Temporal's warning lines
   * (10,000 events or 10 MB, or the server's suggestion) it continues as new with `state`, the
   * undos it owes carried as data, and the next run's body starts again with `resumed` set to
   * `state`; before that it returns at once. Call it where the body could start over from
   * `state` (between iterations). Never call a step again for an item a previous run did.
   * @example for (let n = resumed?.polls ?? 0; ; n++) { await checkpoint({ polls: n }); … }
   */
  checkpoint(state: unknown): Promise<void>;
  /** The state the previous run of the chain passed to `checkpoint`; undefined in the first. */
  resumed?: unknown;
  /**
   * Ends the run with an outcome (declared in `outcomes`) after unwinding what was done.
   * @example if (answer.timedOut) return fail('expired', 'no approval within 2 days')
   */
  fail(outcome: string, reason: string): never;
}

/** A code-first workflow: its entity, its declared steps, its body. */
export interface WorkflowDefinition<
  TData,
  A extends ActivityMap,
  S extends Record<string, StepDeclaration<TData, A>>,
  TExtra extends object = object,
> extends Omit<SagaDefinition<TData, A, TExtra>, 'steps' | 'claim'> {
  /**
   * Every step the body may call, by name (its key is `<kind>:<entityId>:<name>`).
   * @example steps: { charge: { activity: 'chargeCard', retry: 'foreign' } }
   */
  steps: S;
  /**
   * The children the body starts that have an undo, by name. Default: none (a child without
   * one is never undone by this run).
   * @example children: { shipment: { compensate: { name: 'recall', activity: 'recallShipment', retry: 'foreign', input: () => ({}) } } }
   */
  children?: Record<string, ChildDeclaration<TData, A>>;
  /**
   * Outcomes the body may end the run with through `fail`. Default: none.
   * @example outcomes: ['expired']
   */
  outcomes?: readonly string[];
  /**
   * How the entity is claimed, when one of the steps claims in its own transaction.
   * Default: the engine claims before the body runs.
   * @example claim: { step: 'reserve', verdict, cancelled, settle }
   */
  claim?: InStepClaim<TData, A> & { step: keyof S & string };
  /**
   * The workflow's body: plain async code over the steps, sleeps, waits and children.
   * Its returned object joins the workflow result.
   * @example async run({ data, steps }) { await steps.issue({ cardId: data.cardId }) }
   */
  run(ctx: WorkflowContext<TData, A, S, TExtra>): Promise<object | void>;
}
