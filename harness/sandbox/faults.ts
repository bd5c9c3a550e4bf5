import { z } from 'zod';
import { createPrng } from '../../src/util/prng';

/**
 * Endpoints that take faults: the effectful POSTs (`holds` a line's hold and its release,
 * `shipments` a shipment and its cancellation). Also the key store's scopes.
 */
export const FAULT_ENDPOINTS = ['charges', 'refunds', 'emails', 'holds', 'shipments'] as const;
export type FaultEndpoint = (typeof FAULT_ENDPOINTS)[number];

const rate = z.number().min(0).max(1);

/** Faults of one endpoint. Every field defaults to "no fault". */
export const endpointFaultsSchema = z.object({
  /** Share of fresh requests that fail with 500 before anything commits. Default 0. */
  failBeforeCommitRate: rate.default(0),
  /** Share of fresh requests whose effect commits but whose response is lost. Default 0. */
  timeoutAfterCommitRate: rate.default(0),
  /** Added latency per request in ms, after the key is claimed. Default 0. */
  latencyMs: z.number().int().min(0).max(120_000).default(0),
  /**
   * Holds the response this many ms after the effect committed (a slow or stuck response;
   * crash tests kill the worker in this window). Counts against `limit`. Default 0.
   */
  holdResponseMs: z.number().int().min(0).max(600_000).default(0),
  /**
   * Share of fresh requests answered 429 with `Retry-After: retryAfterSeconds` before anything
   * commits (the provider's own rate limit). Default 0.
   */
  rateLimitedRate: rate.default(0),
  /** The Retry-After of an injected 429, in seconds. Default 1. */
  retryAfterSeconds: z.number().int().min(0).max(3600).default(1),
  /** Injected faults (of any kind) before the endpoint turns healthy. Default: no limit. */
  limit: z.number().int().min(0).optional(),
});
export type EndpointFaults = z.infer<typeof endpointFaultsSchema>;

export const faultSettingsSchema = z.object({
  /** Reseeds the PRNG; omitted keeps the current sequence. */
  seed: z.number().int().optional(),
  endpoints: z.partialRecord(z.enum(FAULT_ENDPOINTS), endpointFaultsSchema).default({}),
});
export type FaultSettings = z.input<typeof faultSettingsSchema>;

export interface FaultDecision {
  /** Seconds of the 429's Retry-After; undefined: no 429. */
  rateLimitedFor?: number;
  failBeforeCommit: boolean;
  timeoutAfterCommit: boolean;
  latencyMs: number;
  holdResponseMs: number;
}

const HEALTHY: EndpointFaults = {
  rateLimitedRate: 0,
  retryAfterSeconds: 1,
  failBeforeCommitRate: 0,
  timeoutAfterCommitRate: 0,
  latencyMs: 0,
  holdResponseMs: 0,
};

/**
 * Per-endpoint fault injection, changeable at run time (admin endpoint) and seedable. Draws
 * are made only for fresh executions, never for replays, so a replay is always clean.
 */
export class FaultInjector {
  private random: () => number;
  private seed: number;
  private readonly endpoints = new Map<FaultEndpoint, EndpointFaults>();
  private readonly injected = new Map<FaultEndpoint, number>();

  constructor(seed = 1) {
    this.seed = seed;
    this.random = createPrng(seed);
  }

  /** Applies settings: given endpoints are replaced (and their counters reset), others kept. */
  configure(input: FaultSettings): void {
    const settings = faultSettingsSchema.parse(input);
    if (settings.seed !== undefined) {
      this.seed = settings.seed;
      this.random = createPrng(settings.seed);
    }
    for (const [name, faults] of Object.entries(settings.endpoints)) {
      this.endpoints.set(name as FaultEndpoint, faults);
      this.injected.set(name as FaultEndpoint, 0);
    }
  }

  /** Current settings and how many faults each endpoint has injected. */
  describe(): { seed: number; endpoints: Record<string, EndpointFaults & { injected: number }> } {
    const endpoints: Record<string, EndpointFaults & { injected: number }> = {};
    for (const name of FAULT_ENDPOINTS) {
      endpoints[name] = { ...this.faultsOf(name), injected: this.injected.get(name) ?? 0 };
    }
    return { seed: this.seed, endpoints };
  }

  /** Decides the faults for one fresh request to `endpoint`. */
  decide(endpoint: FaultEndpoint): FaultDecision {
    const f = this.faultsOf(endpoint);
    const used = this.injected.get(endpoint) ?? 0;
    const budgetLeft = f.limit === undefined || used < f.limit;
    // Both draws always happen so the sequence does not depend on which fault fired.
    const a = this.random();
    const b = this.random();
    // A third draw only when 429s are asked for: seeded runs without them keep their sequence.
    if (f.rateLimitedRate > 0 && budgetLeft && this.random() < f.rateLimitedRate) {
      this.injected.set(endpoint, used + 1);
      return {
        rateLimitedFor: f.retryAfterSeconds,
        failBeforeCommit: false,
        timeoutAfterCommit: false,
        latencyMs: f.latencyMs,
        holdResponseMs: 0,
      };
    }
    const failBeforeCommit = budgetLeft && a < f.failBeforeCommitRate;
    const timeoutAfterCommit = budgetLeft && !failBeforeCommit && b < f.timeoutAfterCommitRate;
    const holdResponseMs =
      budgetLeft && !failBeforeCommit && !timeoutAfterCommit ? f.holdResponseMs : 0;
    if (failBeforeCommit || timeoutAfterCommit || holdResponseMs > 0) {
      this.injected.set(endpoint, used + 1);
    }
    return { failBeforeCommit, timeoutAfterCommit, latencyMs: f.latencyMs, holdResponseMs };
  }

  private faultsOf(endpoint: FaultEndpoint): EndpointFaults {
    return this.endpoints.get(endpoint) ?? HEALTHY;
  }
}
