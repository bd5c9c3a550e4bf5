/**
 * The header `dlq replay` tags each replayed record with (the DLQ entry it replays, as
 * `<dlq topic>/<partition>/<offset>`): the bridge starts such a run behind live traffic
 * (src/temporal/run-priority.ts), and the replay's marks name the entry by it.
 */
export const REPLAY_OF_HEADER = 'onceflow-replay-of';
