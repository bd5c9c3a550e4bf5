// The emulator's clock and scheduler: what is due at a virtual time, the test's own promises
// still out (an answer it settles later), and the loop that runs the emulation until nothing
// is left but to wait for the test. Time moves on only when nothing else can happen (and,
// with `idleTurns`, after the test had its turns to act). Things due at the same moment
// arrive in an order the `rng` picks (the server sees them in some order; the emulator tries
// them all across seeds).

/** Where every emulated run starts (virtual ms). */
export const START = Date.parse('2026-11-27T12:00:00Z');

interface Due {
  at: number;
  n: number;
  fire(): void;
}

/** Lets the event loop turn once: every microtask queued (workflow code) has run. */
export const flush = () => new Promise<void>((r) => setImmediate(r));

export class Clock {
  now = START;
  /** Answers and children waiting on the test's own promises. */
  external = 0;
  /** The first error of the emulation itself (a bug of the emulator or a test), for `whenIdle`. */
  error: unknown;
  private readonly agenda: Due[] = [];
  private n = 0;
  private idle = 0;
  private pumping = false;
  private again = false;
  private waiters: Array<() => void> = [];

  constructor(
    private readonly idleTurns: number,
    readonly rng: (() => number) | undefined,
  ) {}

  /** Runs `fire` at virtual time `when` (now, if that has passed). */
  at(when: number, fire: () => void): void {
    const due = { at: Math.max(when, this.now), n: this.n++, fire };
    // Kept sorted: binary insertion after every entry due at the same time or earlier.
    let lo = 0;
    let hi = this.agenda.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.agenda[mid]!.at <= due.at) lo = mid + 1;
      else hi = mid;
    }
    this.agenda.splice(lo, 0, due);
  }

  get pending(): number {
    return this.agenda.length;
  }

  /** Moves time to the next thing due and runs everything due then, in the rng's order. */
  private advance(): void {
    this.now = Math.max(this.now, this.agenda[0]!.at);
    let k = 0;
    while (k < this.agenda.length && this.agenda[k]!.at <= this.now) k++;
    const due = this.agenda.splice(0, k);
    if (this.rng)
      for (let i = due.length - 1; i > 0; i--) {
        const j = Math.floor(this.rng() * (i + 1));
        [due[i], due[j]] = [due[j]!, due[i]!];
      }
    for (const d of due) d.fire();
  }

  /** Asks the loop to look again (something arrived from outside it). */
  poke(work: () => Promise<boolean>): void {
    void this.run(work);
  }

  /** Runs the emulation: `work` does what is ready now (a workflow task) and says if it did. */
  async run(work: () => Promise<boolean>): Promise<void> {
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    try {
      for (;;) {
        this.again = false;
        await flush();
        if (await work()) {
          this.idle = 0;
          continue;
        }
        if (this.external > 0 || this.again) continue;
        if (this.agenda.length === 0) break;
        if (this.idle < this.idleTurns) {
          this.idle++;
          continue;
        }
        this.idle = 0;
        this.advance();
      }
    } catch (err) {
      this.error ??= err;
    } finally {
      this.pumping = false;
    }
    const waiters = this.waiters;
    this.waiters = [];
    waiters.forEach((w) => w());
  }

  /** Resolves once the loop has nothing left to do but wait for the test. */
  async whenIdle(work: () => Promise<boolean>): Promise<void> {
    await flush();
    await new Promise<void>((resolve) => {
      this.waiters.push(resolve);
      void this.run(work);
    });
    if (this.error !== undefined) throw this.error;
  }
}
