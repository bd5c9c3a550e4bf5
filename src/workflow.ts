/**
 * `onceflow/workflow`: the workflow side of the engine's public API, for a domain's workflows
 * module (bundled into Temporal's sandbox: it imports only @temporalio/workflow and pure
 * helpers). A saga is a step table; its run is the workflow function's body.
 */
export { defineSaga, runSaga, type Saga } from './workflows/saga';
export type {
  ActivityMap,
  AnyCall,
  CallSpec,
  ClaimOutcome,
  Compensation,
  InStepClaim,
  SagaCompat,
  SagaDefinition,
  SagaStep,
  SettleCall,
  StepContext,
} from './workflows/saga-types';
export {
  ATTENTION_MEMO,
  WAITED_MEMO,
  cancelSignal,
  resolveStepSignal,
  retryStepSignal,
  statusQuery,
  type Attention,
  type CancelRequest,
  type OperatorAction,
  type RecordedOperatorAction,
  type RecoveryPoint,
  type SagaResult,
  type SagaStatus,
  type WaitedMemo,
} from './workflows/saga-status';
export { MAX_KEY_LENGTH, stepKey } from './workflows/step-key';
export {
  foreignBudget,
  ownBudget,
  proxyForeign,
  proxyOwn,
  proxyOwnLocal,
  type RetryClass,
} from './workflows/retry-classes';
export { describeFailure } from './workflows/failures';
export type { EventMeta, EventWorkflowInput } from './events/workflow-input';
