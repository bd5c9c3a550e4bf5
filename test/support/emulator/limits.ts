// Temporal's limits as the emulator enforces them, and the bytes each history event costs.
//
// Limits: the server's defaults (temporalio/temporal common/dynamicconfig/constants.go), and
// what it does past each (service/history/...): a history past `limit.historyCount.error` or
// `limit.historySize.error` is terminated at its next transaction (workflow/context.go
// enforceHistoryCountCheck / enforceHistorySizeCheck); a payload in a command past
// `limit.blobSize.error` is refused by the worker (sdk-core payload_limits: the task fails as
// PayloadsTooLarge and is retried for ever; an older worker lets the server terminate the run);
// a completion past the 4 MB gRPC message limit fails as GrpcMessageTooLarge, which the server
// answers by terminating the run (respondworkflowtaskfailed/api.go); more pending activities,
// children, external signals or cancel requests than 2,000 fail the task
// (PENDING_*_LIMIT_EXCEEDED, retried for ever); more than 100 events or 2 MB buffered while a
// task is in flight fail it with FORCE_CLOSE_COMMAND (mutable_state_impl.go).
//
// Bytes: calibrated once on the dev server (Temporal CLI 1.9.1, server 1.32.0) with the
// project's encrypting data converter, by calibration/calibrate.ts: 106 events of one of each,
// historySizeBytes 318,314 against 318,021 for the events' own encodings (3 bytes of framing
// per event). Measured (bytes, with the JSON of its payload in brackets):
//   WorkflowExecutionStarted 410 [60]; WorkflowTaskScheduled 61 first, 104 after;
//   WorkflowTaskStarted 172-173; WorkflowTaskCompleted 171 first, 136 after;
//   ActivityTaskScheduled 289 [40], 100,290 [100,034], 484 with a 50-character summary;
//   ActivityTaskStarted 172, 423 carrying the last attempt's failure; ActivityTaskCompleted
//   203 [16], 100,200 [100,011]; ActivityTaskFailed 295; ActivityTaskTimedOut 76;
//   ActivityTaskCancelRequested 28; MarkerRecorded (local activity) 100,463 [100,011], 546
//   failed; TimerStarted 36, 232 with a summary; TimerFired 30; TimerCanceled 42;
//   UpsertWorkflowSearchAttributes 91 (Step=waiting); WorkflowPropertiesModified 218 [37];
//   WorkflowExecutionSignaled 244 [16]; WorkflowExecutionUpdateAccepted 331 [11];
//   WorkflowExecutionUpdateCompleted 227 [4]; a rejected update: no event;
//   StartChildWorkflowExecutionInitiated 171, 321 with an input [4];
//   ChildWorkflowExecutionStarted 166; ChildWorkflowExecutionCompleted 315 [6], Failed 441;
//   SignalExternalWorkflowExecutionInitiated 272 [10], Failed 114;
//   WorkflowExecutionCompleted 182 [12]. An activity scheduled and cancelled in the same task
//   writes nothing (the SDK drops both commands). Ten 1 ms sleeps in a row: 55 events.
// An encrypted payload costs its JSON plus about 148 bytes (AES-GCM IV and tag, the inner and
// outer metadata); a summary the same. Events not in the calibration are estimated from their
// neighbours (marked "est.").

export const LIMITS = {
  historyEvents: 51_200,
  historyBytes: 50 * 1024 * 1024,
  /** One payload (an input, a result, a memo field). */
  blobBytes: 2 * 1024 * 1024,
  /** One workflow-task completion (every command's attributes together). */
  grpcMessageBytes: 4 * 1024 * 1024,
  pendingActivities: 2_000,
  pendingChildren: 2_000,
  pendingSignals: 2_000,
  pendingCancelRequests: 2_000,
  /** Events buffered while a workflow task is in flight, and their bytes. */
  bufferedEvents: 100,
  bufferedBytes: 2 * 1024 * 1024,
  /** Where the server suggests continuing as new (workflowInfo().continueAsNewSuggested). */
  suggestContinueAsNewEvents: 4 * 1024,
  suggestContinueAsNewBytes: 4 * 1024 * 1024,
  /** The workflow task's start-to-close timeout (the SDK's default). */
  workflowTaskTimeoutMs: 10_000,
  /** A task kept open by local activities is heartbeated at 80% of its timeout. */
  workflowTaskHeartbeatMs: 8_000,
} as const;

/** What an encrypted payload adds to its JSON. */
export const PAYLOAD_OVERHEAD = 148;
/** Each event's framing in the persisted batch. */
export const EVENT_FRAMING = 3;
/** A failure as history records it (message, type, stack trace, details), before its texts. */
export const FAILURE_BYTES = 250;

/** The JSON bytes of a value as the default payload converter writes it. */
export function jsonBytes(value: unknown): number {
  if (value === undefined) return 0;
  const text = JSON.stringify(value);
  return text === undefined ? 0 : Buffer.byteLength(text);
}

/** One encrypted payload of `value` (0 for none). */
export function payloadBytes(value: unknown): number {
  return value === undefined ? 0 : jsonBytes(value) + PAYLOAD_OVERHEAD;
}

/** A failure's bytes: its fixed part, message, type and details. */
export function failureBytes(err: unknown): number {
  if (!(err instanceof Error)) return FAILURE_BYTES;
  const details = (err as { details?: unknown }).details;
  let n = FAILURE_BYTES + Buffer.byteLength(err.message) + jsonBytes(details);
  if (err.cause instanceof Error) n += failureBytes(err.cause) - FAILURE_BYTES / 2;
  return n;
}

/** The event types the emulator writes, with the bytes of each before its variable parts. */
export const EVENT_BASE = {
  WorkflowExecutionStarted: 350 - PAYLOAD_OVERHEAD,
  WorkflowTaskScheduled: 104,
  WorkflowTaskStarted: 173,
  WorkflowTaskCompleted: 136,
  WorkflowTaskFailed: 120, // est.; plus the failure
  WorkflowTaskTimedOut: 40, // est.
  ActivityTaskScheduled: 249 - PAYLOAD_OVERHEAD,
  ActivityTaskStarted: 172,
  ActivityTaskCompleted: 187 - PAYLOAD_OVERHEAD,
  ActivityTaskFailed: 45, // plus the failure (295 for a short one)
  ActivityTaskTimedOut: 76,
  ActivityTaskCancelRequested: 28,
  ActivityTaskCanceled: 45, // est.
  MarkerRecorded: 452 - PAYLOAD_OVERHEAD,
  TimerStarted: 36,
  TimerFired: 30,
  TimerCanceled: 42,
  UpsertWorkflowSearchAttributes: 48, // plus each attribute: its name, JSON and 30
  WorkflowPropertiesModified: 28, // plus each field: its name and payload
  WorkflowExecutionSignaled: 224 - PAYLOAD_OVERHEAD,
  WorkflowExecutionCancelRequested: 110, // est.
  WorkflowExecutionUpdateAccepted: 320 - PAYLOAD_OVERHEAD,
  WorkflowExecutionUpdateCompleted: 223 - PAYLOAD_OVERHEAD,
  WorkflowExecutionUpdateAdmitted: 200, // est.; plus the request
  StartChildWorkflowExecutionInitiated: 171,
  StartChildWorkflowExecutionFailed: 150, // est.
  ChildWorkflowExecutionStarted: 166,
  ChildWorkflowExecutionCompleted: 309 - PAYLOAD_OVERHEAD,
  ChildWorkflowExecutionFailed: 191, // plus the failure
  ChildWorkflowExecutionCanceled: 200, // est.
  ChildWorkflowExecutionTerminated: 180, // est.
  ChildWorkflowExecutionTimedOut: 190, // est.
  RequestCancelExternalWorkflowExecutionInitiated: 150, // est.
  ExternalWorkflowExecutionCancelRequested: 110, // est.
  SignalExternalWorkflowExecutionInitiated: 262 - PAYLOAD_OVERHEAD,
  SignalExternalWorkflowExecutionFailed: 114,
  ExternalWorkflowExecutionSignaled: 110, // est.
  WorkflowExecutionCompleted: 170 - PAYLOAD_OVERHEAD,
  WorkflowExecutionFailed: 60, // est.; plus the failure
  WorkflowExecutionCanceled: 50, // est.
  WorkflowExecutionTerminated: 100, // est.
  WorkflowExecutionContinuedAsNew: 300, // est.; plus the input
} as const;

export type EventType = keyof typeof EVENT_BASE;

/** One search attribute as an upsert writes it (not encrypted: visibility reads it). */
export function attributeBytes(name: string, value: unknown): number {
  return name.length + jsonBytes(value) + 30;
}

/** A summary (user metadata) as the SDK writes it: one encrypted payload of the string. */
export function summaryBytes(summary: string | undefined): number {
  return summary === undefined ? 0 : payloadBytes(summary);
}
