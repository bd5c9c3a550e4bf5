/**
 * `onceflow/workflow`: the workflow side of the engine's public API, for a domain's workflows
 * module (bundled into Temporal's sandbox: it imports only @temporalio/workflow and pure
 * helpers). A workflow is plain code over declared steps (defineWorkflow), or a step table
 * (defineSaga) for sagas that fit on one screen; both run on the same step primitive.
 */
export { defineWorkflow, runWorkflow } from './workflows/define-workflow';
export { defineSaga, runSaga, type EntityWorkflow, type Saga } from './workflows/saga';
export { StepFailure } from './workflows/run-errors';
export { WorkflowDefinitionError } from './workflows/names';
export type {
  ActivityStepDeclaration,
  CompensationContext,
  CompensationDeclaration,
  PublishDeclaration,
  StepDeclaration,
  StepFunction,
  StepInput,
  WorkflowContext,
  WorkflowDefinition,
} from './workflows/workflow-types';
export type { WaitOptions, WaitResult } from './workflows/run-waits';
export type {
  ActivityMap,
  AnyCall,
  CallSpec,
  ClaimOutcome,
  Compensation,
  InStepClaim,
  PublishStep,
  RowCondition,
  SagaDefinition,
  SagaRow,
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
  type StepTimeouts,
} from './workflows/retry-classes';
export { describeFailure } from './workflows/failures';
export { proxyThroughOutage, waitOutTransient } from './workflows/outage-wait';
export { providerTaskQueue } from './util/provider-queue';
export type { PublishEventResult } from './activities/publish-contract';
export type { ClaimActivities, ClaimOwner } from './activities/claims';
export type { EventMeta, EventWorkflowInput } from './events/workflow-input';
