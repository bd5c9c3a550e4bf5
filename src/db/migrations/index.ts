import { createLedger } from './0001-create-ledger';
import { createProviderSandbox } from './0002-create-provider-sandbox';
import { createInventory } from './0003-create-inventory';
import { createOrderClaims } from './0004-create-order-claims';
import { refundEveryCharge } from './0005-refund-every-charge';
import { claimOutlivesKeys } from './0006-claim-outlives-keys';
import { createDlqReplays } from './0007-create-dlq-replays';
import { entityClaims } from './0008-entity-claims';
import { workflowBuilds } from './0009-workflow-builds';
import { verifiedBuilds } from './0010-verified-builds';
import { sandboxHoldsShipments } from './0011-sandbox-holds-shipments';
import { prunableBuilds } from './0012-prunable-builds';
import { providerPace } from './0013-provider-pace';
import type { Migration } from './types';

export type { Migration } from './types';

/** Every migration, in version order. Append only: an applied migration is never edited. */
export const migrations: readonly Migration[] = [
  createLedger,
  createProviderSandbox,
  createInventory,
  createOrderClaims,
  refundEveryCharge,
  claimOutlivesKeys,
  createDlqReplays,
  entityClaims,
  workflowBuilds,
  verifiedBuilds,
  sandboxHoldsShipments,
  prunableBuilds,
  providerPace,
];
