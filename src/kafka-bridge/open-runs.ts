// Admission: how many runs this bridge started are still open, per tenant, per class and in
// all, against the caps (BRIDGE_MAX_OPEN_RUNS*). Pure counting; the closes come from
// Temporal's visibility (closed-runs.ts).
import type { StartClass } from './read-ahead-window';

/** The caps on open runs; 0 is no cap. */
export interface OpenRunCaps {
  /** All runs this bridge started and that are still open. BRIDGE_MAX_OPEN_RUNS. */
  total: number;
  /** One tenant's open runs (the tenantless share counts as one tenant). */
  perTenant: number;
  /** Open runs of replays and backfills (the background class). */
  background: number;
}

interface OpenRun {
  tenant: string;
  cls: StartClass;
  /** When it started (ms since the epoch): it counts until it closes or the horizon passes. */
  at: number;
}

/**
 * The runs this bridge started and has not seen close, by workflow ID. A run counts from its
 * start until visibility lists it closed; so the counts are never below the truth for the
 * runs this bridge knows, and each bridge of a group caps its own starts (a group of n
 * bridges opens at most n times the caps). Runs open before the bridge started are counted
 * in the total as `unattributed` (Temporal's count at start), each close of an unknown run
 * taking one off; they count against no tenant.
 */
export class OpenRuns {
  private readonly runs = new Map<string, OpenRun>();
  private readonly perTenant = new Map<string, number>();
  private background = 0;
  private unattributed = 0;
  /** Starts in flight: counted from the moment they are picked, until they end. */
  private readonly reserved = new Map<string, number>();
  private reservedBackground = 0;
  private reservedTotal = 0;
  /** The runs open at start whose close was counted (a close is listed by several polls). */
  private readonly closedBefore = new Set<string>();

  private seededAt = 0;

  constructor(
    readonly caps: OpenRunCaps,
    /** BRIDGE_OPEN_RUN_HORIZON. */
    private readonly horizonMs: number = Number.POSITIVE_INFINITY,
    private readonly now: () => number = Date.now,
  ) {}

  /** True when no cap is set: nothing needs counting. */
  get uncapped(): boolean {
    return this.caps.total === 0 && this.caps.perTenant === 0 && this.caps.background === 0;
  }

  /** Open runs counted against the total, starts in flight included. */
  get total(): number {
    return this.runs.size + this.unattributed + this.reservedTotal;
  }

  /** Open runs of `tenant`, starts in flight included. */
  ofTenant(tenant: string): number {
    return (this.perTenant.get(tenant) ?? 0) + (this.reserved.get(tenant) ?? 0);
  }

  /** Open runs of the background class, starts in flight included. */
  get backgroundRuns(): number {
    return this.background + this.reservedBackground;
  }

  /**
   * A start of `tenant` in `cls` was picked: it counts as open until it ends (`settle`), so
   * starts picked together cannot pass a cap between them.
   */
  reserve(tenant: string, cls: StartClass): void {
    this.reserved.set(tenant, (this.reserved.get(tenant) ?? 0) + 1);
    if (cls === 'background') this.reservedBackground++;
    this.reservedTotal++;
  }

  /**
   * A reserved start ended: a new run (`workflowId`) counts until it closes; a duplicate, a
   * dead letter or a start left undone counts no more.
   */
  settle(tenant: string, cls: StartClass, workflowId?: string): void {
    const n = (this.reserved.get(tenant) ?? 0) - 1;
    if (n > 0) this.reserved.set(tenant, n);
    else this.reserved.delete(tenant);
    if (cls === 'background') this.reservedBackground--;
    this.reservedTotal--;
    if (workflowId !== undefined) this.noteStarted(workflowId, tenant, cls);
  }

  /** Whether a start of `tenant` in `cls` stays within every cap. */
  admits(tenant: string, cls: StartClass): boolean {
    const { caps } = this;
    if (caps.total > 0 && this.total >= caps.total) return false;
    if (caps.perTenant > 0 && this.ofTenant(tenant) >= caps.perTenant) return false;
    if (cls === 'background' && caps.background > 0 && this.backgroundRuns >= caps.background)
      return false;
    return true;
  }

  /** True when some count is at least half its cap: closes are worth reading often. */
  get pressed(): boolean {
    const { caps } = this;
    const half = (n: number, cap: number) => cap > 0 && n * 2 >= cap;
    if (half(this.total, caps.total) || half(this.backgroundRuns, caps.background)) return true;
    if (caps.perTenant > 0)
      for (const t of new Set([...this.perTenant.keys(), ...this.reserved.keys()]))
        if (half(this.ofTenant(t), caps.perTenant)) return true;
    return false;
  }

  /** Runs open before this bridge started (Temporal's count of the task queue's open runs). */
  seedUnattributed(count: number): void {
    this.unattributed = Math.max(0, Math.floor(count));
    this.seededAt = this.now();
  }

  /**
   * Stops counting the runs started longer than the horizon ago (and the runs open at start,
   * once the horizon has passed since). Returns true when a count went down.
   */
  expire(): boolean {
    const before = this.now() - this.horizonMs;
    let expired = false;
    // A Map iterates in insertion order: oldest start first.
    for (const [workflowId, run] of this.runs) {
      if (run.at > before) break;
      this.forget(workflowId, run);
      expired = true;
    }
    if (this.unattributed > 0 && this.seededAt <= before) {
      this.unattributed = 0;
      expired = true;
    }
    return expired;
  }

  /** This bridge started `workflowId` (a new run, not a duplicate). */
  noteStarted(workflowId: string, tenant: string, cls: StartClass): void {
    if (this.runs.has(workflowId)) return;
    this.runs.set(workflowId, { tenant, cls, at: this.now() });
    this.perTenant.set(tenant, (this.perTenant.get(tenant) ?? 0) + 1);
    if (cls === 'background') this.background++;
  }

  /**
   * Visibility lists `workflowId` closed; `openedBeforeSeed`: it started before the bridge
   * counted the open runs (one of the unattributed). Returns true when a count went down.
   */
  noteClosed(workflowId: string, openedBeforeSeed = false): boolean {
    const run = this.runs.get(workflowId);
    if (!run) {
      if (!openedBeforeSeed || this.unattributed === 0 || this.closedBefore.has(workflowId))
        return false;
      this.closedBefore.add(workflowId);
      this.unattributed--;
      return true;
    }
    this.forget(workflowId, run);
    return true;
  }

  private forget(workflowId: string, run: OpenRun): void {
    this.runs.delete(workflowId);
    const n = (this.perTenant.get(run.tenant) ?? 0) - 1;
    if (n > 0) this.perTenant.set(run.tenant, n);
    else this.perTenant.delete(run.tenant);
    if (run.cls === 'background') this.background--;
  }
}
