import type { KnownEvent } from '../db/ledger-store';
import type { PoisonReason } from '../events/envelope';

export type { KnownEvent } from '../db/ledger-store';

/** The facts about one translated event that deduplication looks at. */
export interface DedupCandidate {
  identity: string;
  eventType: string;
  aggregateId: string;
  aggregateVersion?: number;
  fingerprint: string;
}

export type DedupVerdict =
  | { kind: 'new' }
  | { kind: 'duplicate'; known: KnownEvent }
  | {
      kind: 'poison';
      reason: Extract<PoisonReason, 'identity-conflict' | 'stale-version'>;
      error: string;
    };

/**
 * Decides, from what the ledger knows, whether a valid event must be started, is a duplicate,
 * or is poison (docs/architecture.md, "Identity and deduplication"). Pure; the consumer loop
 * supplies the batch lookups (findKnown, highestVersions) and keeps `highestVersion` current
 * as it starts events of the same aggregate within one batch.
 *
 * Order matters: an exact duplicate is never stale (it is the change already applied), and a
 * known identity with another payload is a conflict whatever its version.
 */
export function classifyAgainstLedger(
  candidate: DedupCandidate,
  known: KnownEvent | undefined,
  highestVersion: number | undefined,
): DedupVerdict {
  if (known) {
    if (known.fingerprint === candidate.fingerprint && known.eventType === candidate.eventType) {
      return { kind: 'duplicate', known };
    }
    return {
      kind: 'poison',
      reason: 'identity-conflict',
      error:
        known.eventType !== candidate.eventType
          ? `identity ${candidate.identity} was already used by a ${known.eventType} event (workflow ${known.workflowId}); this ${candidate.eventType} event claims it again`
          : `identity ${candidate.identity} was already started as workflow ${known.workflowId} with payload fingerprint ${known.fingerprint}; this payload's fingerprint is ${candidate.fingerprint}`,
    };
  }
  if (
    candidate.aggregateVersion !== undefined &&
    highestVersion !== undefined &&
    candidate.aggregateVersion <= highestVersion
  ) {
    return {
      kind: 'poison',
      reason: 'stale-version',
      error: `${candidate.eventType} ${candidate.aggregateId} version ${candidate.aggregateVersion} is at or below the highest applied version ${highestVersion}`,
    };
  }
  return { kind: 'new' };
}

/**
 * The fingerprint comparison after Temporal reports WorkflowExecutionAlreadyStarted (the ledger
 * did not know the identity): a matching memo fingerprint is a duplicate, another is a
 * conflict. `startedFingerprint` undefined (memo unreadable) counts as a duplicate: refusing
 * it would DLQ a redelivery of our own start.
 */
export function classifyAlreadyStarted(
  fingerprint: string,
  startedFingerprint: string | undefined,
): 'duplicate' | 'identity-conflict' {
  return startedFingerprint === undefined || startedFingerprint === fingerprint
    ? 'duplicate'
    : 'identity-conflict';
}
