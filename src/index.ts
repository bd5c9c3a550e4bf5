/**
 * `onceflow`: the Node side of the engine's public API (the worker, the bridge, a domain's
 * declarations and what its activities may use). Workflow code imports `onceflow/workflow`
 * instead. docs/architecture.md, "The engine and its domains", shows the whole of a domain.
 */
export {
  defineDomain,
  DomainDefinitionError,
  type Domain,
  type DomainActivities,
  type DomainOps,
  type DomainSpec,
  type InvariantBreach,
  type InvariantCheck,
} from './engine/define-domain';
export { routesOfDomains } from './engine/registry';
export { defineRoute, type RouteSpec } from './events/define-route';
export { FramingConflictError, type Route, type RouteTable } from './events/routes';
export type {
  CloudEventsOptions,
  DebeziumOutboxOptions,
  FramedEvent,
  FramedMessage,
  FramingFunction,
  FramingSpec,
} from './events/framing';
export type { DataSchema, StandardSchemaV1 } from './events/data-schema';
export type { IdentityFunction, IdentityStrategy } from './events/identity';
export type { Envelope } from './events/envelope';
export type { EventMeta, EventWorkflowInput } from './events/workflow-input';
export { buildEventMessage, type EventSpec } from './events/event-message';

export type { CreateWorkerOptions } from './worker/create-worker';
export type { RunWorkerOptions } from './worker/run-worker';
export { prepareWorkflowBundle } from './worker/workflow-bundle';
export { startBridge, type BridgeOptions, type RunningBridge } from './kafka-bridge/bridge';
export { runBridge, type RunBridgeOptions } from './kafka-bridge/run-bridge';

export { loadConfig, ConfigError, type Config } from './config';
export { createWorker, runWorker, replayHistories } from './worker/load-worker';
export type { ReplayHistoriesOptions } from './worker/replay-histories';
export {
  HistoryReplayError,
  recordHistory,
  type RecordHistoryOptions,
} from './worker/history-fixtures';
export { createPool } from './db/pool';
export { migrate } from './db/migrate';
export type { ActivityDeps } from './activities';

export {
  claimEntity,
  findClaim,
  settleClaim,
  type ClaimEntityInput,
  type EntityRef,
  type SettleClaimInput,
  type SettleClaimResult,
} from './db/entity-claim-store';
export type { ClaimCandidate, ClaimVerdict, EntityClaim } from './db/entity-claim';

export {
  postToProvider,
  ProviderCallError,
  ProviderRateLimitedError,
  ProviderTimeoutError,
  ProviderUnavailableError,
  ProviderUnreachableError,
  IdempotencyKeyInUseError,
  type ProviderClientOptions,
  type ProviderResponse,
} from './activities/provider-http';
export { FAILURE_TYPES } from './activities/failure-types';
