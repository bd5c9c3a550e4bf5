// The per-message step's shared types: what it is given (deps, controls, context) and what
// it returns. Their own module, so the step's helpers (dead-letter.ts, dependency-call.ts)
// import them without importing the step itself (no import cycle).
import type { KafkaMessage } from 'kafkajs';
import type { LedgerRow } from '../db/ledger-store';
import type { Logger } from '../logger';
import type { BackoffOptions } from './backoff';
import type { DlqRecord } from '../events/dlq-message';
import type { LedgerView, BatchLedger } from './ledger-view';
import type { FaultContext } from './fault-advice';
import type { PartitionWait } from './partition-pauses';
import type { BridgeMetrics } from './metrics';
import type { PoisonReason } from '../events/poison';
import type { StartCommand, Translation } from '../events/translate';
import type { SourcePosition, StartOutcome } from './workflow-starter';

/** What the per-message step talks to; injected by the batch handler (fakes in tests). */
export interface StepDeps {
  ledger: BatchLedger;
  /**
   * Starts (or deduplicates) the workflow of one command: startOrDeduplicate in production.
   * `signal` aborts when the call is abandoned (its partition was lost).
   */
  start: (cmd: StartCommand, source: SourcePosition, signal: AbortSignal) => Promise<StartOutcome>;
  sendToDlq: (record: DlqRecord) => Promise<void>;
  metrics: BridgeMetrics;
  log: Logger;
  backoff?: BackoffOptions;
  /** Tries of a non-transient failure before dead-lettering. Default: DEFAULT_MAX_ATTEMPTS (3). */
  maxAttempts?: number;
  /** What the log line of an environment fault names in its fix (fault-advice.ts). */
  faultContext: FaultContext;
  now: () => Date;
}

/** The partition's controls the step needs (a subset of the batch controls). */
export interface StepControls {
  /** False once the bridge stops or the partition is no longer ours: leave the message. */
  shouldContinue: () => boolean;
  /**
   * False once a rebalance took the partition away (or a new generation began): in-flight
   * calls are abandoned and nothing is committed or dead-lettered for it any more. A stopping
   * bridge still owns its partitions and commits the handled prefix.
   */
  ownsPartition: () => boolean;
  heartbeat: () => Promise<void>;
  /**
   * The batch waits on its environment: a call failed with an environment fault and is
   * retried, or has been in flight longer than SLOW_CALL_MS (dependency-call.ts). The bridge
   * pauses the partition and lets the batch go on without holding the consumer's fetches of
   * its other partitions (bridge.ts). Default: nothing.
   */
  onWait?: (wait: PartitionWait) => void;
}

/** One message of the batch, translated. */
export interface BatchItem {
  message: KafkaMessage;
  /** Position in the batch (for the offset tracker). */
  index: number;
  translation: Translation;
  /** The schema ID of a value in the registry wire format (its dead letter names it). */
  schemaId?: number;
}

/**
 * The step's outcome for one message: `started`, `duplicate` and `dead-lettered` are handled
 * (the offset may be committed) once the `row` they carry, if any, is in the ledger (a start,
 * or a start Temporal already had that the ledger did not know); `retry` means the step was
 * stopped (shutdown, lost partition) before the message was handled, so it stays uncommitted
 * and is redelivered.
 */
export type StepOutcome =
  | { kind: 'started'; runId: string; row: LedgerRow }
  | { kind: 'duplicate'; source: 'ledger' }
  | { kind: 'duplicate'; source: 'temporal'; row: LedgerRow }
  | { kind: 'dead-lettered'; reason: PoisonReason; stub: boolean }
  | { kind: 'retry' };

export interface StepContext {
  topic: string;
  partition: number;
  deps: StepDeps;
  controls: StepControls;
  view: LedgerView;
  log: Logger;
}
