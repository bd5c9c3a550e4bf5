// One run's history as the server counts it: events and bytes (limits.ts prices each), and
// the check the server makes at the start of every transaction: a history already past its
// count or size limit terminates the run there.
import { EVENT_BASE, EVENT_FRAMING, LIMITS, type EventType } from './limits';

export class History {
  events: number;
  bytes: number;
  /** Events written, by type (a test's and the report's view). */
  readonly counts = new Map<EventType, number>();

  constructor(base: { events: number; bytes: number }) {
    this.events = base.events;
    this.bytes = base.bytes;
  }

  /** Writes one event of `type` with `extra` bytes beside its fixed part. */
  add(type: EventType, extra = 0): void {
    this.events++;
    this.bytes += EVENT_BASE[type] + extra + EVENT_FRAMING;
    this.counts.set(type, (this.counts.get(type) ?? 0) + 1);
  }

  /** Why the server terminates the run at its next transaction, if it does. */
  breach(): string | undefined {
    if (this.bytes > LIMITS.historyBytes)
      return `history size exceeds limit: ${this.bytes} bytes > ${LIMITS.historyBytes}`;
    if (this.events > LIMITS.historyEvents)
      return `history count exceeds limit: ${this.events} events > ${LIMITS.historyEvents}`;
    return undefined;
  }

  count(type: EventType): number {
    return this.counts.get(type) ?? 0;
  }
}
