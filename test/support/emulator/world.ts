// The emulator's clock and scheduler: deliveries ready now, things due at a virtual time, the
// conditions the workflow code waits on, the log of every delivery with the commands issued
// before it, and the replay of such a log. Time moves on only when nothing else can happen
// (and, with `idleTurns`, after the test had its turns to act).
import { BYTES_PER_EVENT, payloadBytes } from '../../../src/workflows/run-budget';
import type { Command, Delivery, EmulatorOptions, LogEntry } from './types';

/** Where every emulated run starts (virtual ms). */
export const START = Date.parse('2026-11-27T12:00:00Z');

export interface Ready {
  delivery: Delivery;
  apply(): void;
  /** False once it must not be delivered any more (a timer cancelled after it came due). */
  live?: () => boolean;
}

export class World {
  now = START;
  seqs = 0;
  history = 3;
  /** Bytes of history: each event's overhead and the payloads it carries. */
  historyBytes = 3 * BYTES_PER_EVENT;
  /** Commands since the last delivery; every command; every delivery. */
  commands: Command[] = [];
  readonly allCommands: Command[] = [];
  readonly log: LogEntry[] = [];
  readonly ready: Ready[] = [];
  private readonly agenda: Array<{ at: number; n: number; fire(): void }> = [];
  private agendaN = 0;
  conditions: Array<{ until: () => boolean; done(ok: boolean): void; timer?: number }> = [];
  /** Attempts and children waiting on the test's own promises. */
  external = 0;
  private idle = 0;
  private pumping = false;
  private again = false;
  private idleWaiters: Array<() => void> = [];
  /** The first error of the emulation itself (a replay's nondeterminism), for `whenIdle`. */
  error: unknown;
  readonly replay: LogEntry[] | undefined;

  constructor(
    private readonly options: EmulatorOptions,
    /** How a logged delivery is applied again (replay). */
    private readonly applierOf: (d: Delivery) => () => void,
    /** Cancels a timer whose condition came true first. */
    private readonly cancelTimer: (seq: number) => void,
  ) {
    this.replay = options.replay ? [...options.replay] : undefined;
    this.history = options.historyBase ?? 3;
  }

  issue(c: Command, bytes = 0): void {
    this.commands.push(c);
    this.allCommands.push(c);
    this.history += 1;
    this.historyBytes += BYTES_PER_EVENT + bytes;
  }

  at(when: number, fire: () => void): void {
    this.agenda.push({ at: when, n: this.agendaN++, fire });
  }

  /** Delivers one workflow-visible event, and logs it with the commands before it. */
  deliver(d: Delivery, apply: () => void): void {
    if (this.replay) {
      const expected = this.replay.shift()!;
      const a = JSON.stringify(expected.commands);
      const b = JSON.stringify(this.commands);
      if (a !== b) throw new Error(`nondeterminism on replay:\n expected ${a}\n got      ${b}`);
      this.now = expected.at;
    }
    this.log.push({ commands: this.commands, delivery: d, at: this.now });
    this.commands = [];
    // The event itself (an activity's started and closed), and the workflow task it comes in.
    const events = (d.type === 'activity' ? 2 : 1) + 3;
    this.history += events;
    const carried =
      d.type === 'activity' || d.type === 'child'
        ? payloadBytes(d.value instanceof Error ? d.value.message : d.value)
        : d.type === 'signal' || d.type === 'update'
          ? payloadBytes(d.args)
          : 0;
    this.historyBytes += events * BYTES_PER_EVENT + carried;
    apply();
  }

  private unblockConditions(): boolean {
    let any = false;
    for (const c of [...this.conditions]) {
      if (!c.until()) continue;
      this.conditions = this.conditions.filter((x) => x !== c);
      if (c.timer !== undefined) this.cancelTimer(c.timer);
      c.done(true);
      any = true;
    }
    return any;
  }

  /** Workflow code runs on microtasks only: one turn of the event loop drains them all. */
  private quiesce = () => new Promise((r) => setImmediate(r));

  /** Runs the emulation until nothing is left to do but wait for the test. */
  async pump(): Promise<void> {
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    try {
      await this.loop();
    } catch (err) {
      this.error ??= err;
    } finally {
      this.pumping = false;
    }
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    waiters.forEach((w) => w());
  }

  private async loop(): Promise<void> {
    for (;;) {
      {
        this.again = false;
        await this.quiesce();
        if (this.unblockConditions()) continue;
        if (this.replay) {
          if (this.replay.length === 0) break;
          const next = this.replay[0]!;
          this.deliver(next.delivery, this.applierOf(next.delivery));
          continue;
        }
        if (this.ready.length > 0) {
          const i = this.options.rng ? Math.floor(this.options.rng() * this.ready.length) : 0;
          const [r] = this.ready.splice(i, 1);
          if (r!.live && !r!.live()) continue;
          this.deliver(r!.delivery, r!.apply);
          this.idle = 0;
          continue;
        }
        if (this.external > 0 || this.again) continue;
        if (this.agenda.length === 0) break;
        if (this.idle < (this.options.idleTurns ?? 50)) {
          this.idle++;
          continue;
        }
        this.idle = 0;
        this.agenda.sort((a, b) => a.at - b.at || a.n - b.n);
        this.now = Math.max(this.now, this.agenda[0]!.at);
        while (this.agenda.length > 0 && this.agenda[0]!.at <= this.now)
          this.agenda.shift()!.fire();
      }
    }
  }

  /**
   * Resolves once nothing is left to do but wait for the test (a parked call, a wait with no
   * deadline, the run's end): time has moved on through every timer and retry due before.
   */
  async whenIdle(): Promise<void> {
    await this.quiesce();
    await new Promise<void>((resolve) => {
      this.idleWaiters.push(resolve);
      void this.pump();
    });
    if (this.error !== undefined) throw this.error;
  }
}
