// A provider's limit held exactly: every call on a limited provider's queue waits for its own
// moment, claimed in Postgres, at most one call per 1/(limit × PROVIDER_RATE_SHARE) s across
// every worker. Temporal's queue limit (set at worker start, at the same rate) is the outer
// bound: it keeps the calls waiting in matching, where priority and fairness order them,
// rather than in the workers' slots; its limiter lets a second's worth through at once,
// which this pace spreads out.
import type pg from 'pg';
import type {
  ActivityExecuteInput,
  ActivityInboundCallsInterceptor,
  ActivityInterceptorsFactory,
  Next,
} from '@temporalio/worker';
import type { Config } from '../config';
import { createProviderPaceStore, type ProviderPaceStore } from '../db/provider-pace-store';

/** A call's moment could not be claimed (Postgres refused or is down): the attempt fails, retryable. */
export class ProviderPaceError extends Error {
  override readonly name = 'ProviderPaceError';
  constructor(
    readonly provider: string,
    cause: unknown,
  ) {
    super(
      `could not claim a call's moment for provider ${provider}: ${(cause as Error)?.message ?? cause}`,
      {
        cause,
      },
    );
  }
}

/** The pause between two calls of a provider limited to `perSecond`, paced at `share` of it. */
export function paceIntervalMs(perSecond: number, share: number): number {
  return 1000 / (perSecond * share);
}

/** The rate Temporal's queue limit is set to for a provider limited to `perSecond`: the pace's. */
export function pacedRate(perSecond: number, share: number): number {
  return perSecond * share;
}

/**
 * Where Postgres' clock stands against this process's: the smallest gap seen between a
 * claim's answer arriving and Postgres' clock when it answered (the answer's fastest trip
 * included, a millisecond or so), over the last claims. Lets a caller tell how late it
 * really is for its moment, whatever the clocks and however long an answer took.
 */
export class PaceClock {
  private readonly samples: number[] = [];

  constructor(
    private readonly now: () => number = () => performance.timeOrigin + performance.now(),
  ) {}

  /** This process's time now, ms since the epoch. */
  local(): number {
    return this.now();
  }

  /** A claim answered at `pgNowMs` (Postgres' clock) arrived at local time `arrivedMs`. */
  note(arrivedMs: number, pgNowMs: number): void {
    this.samples.push(arrivedMs - pgNowMs);
    if (this.samples.length > 64) this.samples.shift();
  }

  /** Postgres' time `pgMs` on this process's clock. */
  toLocal(pgMs: number): number {
    return pgMs + Math.min(...this.samples);
  }
}

/**
 * How late a call may go for its moment before it claims another: half the room the pace
 * leaves (1000 × (1/share − 1) ms over any second); the other half is for the way to the
 * provider. A moment missed is given up: one interval of the rate, now and then.
 */
export function lateAfterMs(share: number): number {
  return (1000 * (1 / share - 1)) / 2;
}

/** Claims of one call at most before it goes anyway (each a moment a busy process missed). */
const MAX_CLAIMS = 4;

/** Waits until the caller's claimed moment to call `provider` (one claim per call). */
export async function waitForCallMoment(
  store: ProviderPaceStore,
  pace: { provider: string; intervalMs: number; lateAfterMs: number; clock: PaceClock },
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<void> {
  const { clock } = pace;
  for (let claim = 1; ; claim++) {
    let moment: Awaited<ReturnType<ProviderPaceStore['claim']>>;
    try {
      moment = await store.claim(pace.provider, pace.intervalMs);
    } catch (err) {
      throw new ProviderPaceError(pace.provider, err);
    }
    clock.note(clock.local(), moment.nowMs);
    const at = clock.toLocal(moment.atMs);
    const waitMs = at - clock.local();
    if (waitMs > 0) await sleep(waitMs);
    // An answer held up in a busy process, or a timer that fired late, would put this call
    // closer to the ones claimed after it than the pace allows: claim again instead.
    if (clock.local() - at <= pace.lateAfterMs || claim >= MAX_CLAIMS) return;
  }
}

/** Paces every activity it wraps: each attempt is one call to the provider. */
class ProviderPaceInterceptor implements ActivityInboundCallsInterceptor {
  constructor(
    private readonly store: ProviderPaceStore,
    private readonly pace: Parameters<typeof waitForCallMoment>[1],
  ) {}

  async execute(
    input: ActivityExecuteInput,
    next: Next<ActivityInboundCallsInterceptor, 'execute'>,
  ): Promise<unknown> {
    await waitForCallMoment(this.store, this.pace);
    return next(input);
  }
}

/**
 * The interceptor of `provider`'s queue when PROVIDER_RATE_LIMITS gives it a limit per second;
 * undefined otherwise. Goes innermost (right before the activity): each attempt waits for
 * its moment, whatever the interceptors around it do.
 *
 * @example
 * const pace = providerPaceInterceptor({ provider: 'mail', config, pool });
 */
export function providerPaceInterceptor(options: {
  provider: string;
  config: Pick<Config, 'fairness'>;
  pool: pg.Pool;
}): ActivityInterceptorsFactory | undefined {
  const { provider, config } = options;
  const perSecond = config.fairness.providerRateLimits[provider]?.perSecond;
  if (perSecond === undefined) return undefined;
  const store = createProviderPaceStore(options.pool);
  const share = config.fairness.providerRateShare;
  const pace = {
    provider,
    intervalMs: paceIntervalMs(perSecond, share),
    lateAfterMs: lateAfterMs(share),
    clock: new PaceClock(),
  };
  return () => ({ inbound: new ProviderPaceInterceptor(store, pace) });
}
