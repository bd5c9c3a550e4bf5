/**
 * gRPC status codes of failed Temporal calls, as onceflow classifies them
 * (grpc.io/docs/guides/status-codes): the client's and the worker's native connection's
 * errors both carry the numeric `code`.
 */
export const GRPC_STATUS = {
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  RESOURCE_EXHAUSTED: 8,
  ABORTED: 10,
  UNAVAILABLE: 14,
} as const;

/** The gRPC status code of a failed Temporal call, or undefined for any other error. */
export function grpcStatusOf(err: unknown): number | undefined {
  const e = err as { code?: unknown; details?: unknown } | undefined;
  return typeof e?.code === 'number' && typeof e.details === 'string' ? e.code : undefined;
}

/**
 * Whether a retry may outlive the failure: the server unavailable (restarting, no leader),
 * a deadline, overload, or a concurrent change that aborted this one. Any other status (a bad
 * request, a permission, a missing deployment) and any other error is not, and is not retried.
 */
export function isTransientGrpcError(err: unknown): boolean {
  const status = grpcStatusOf(err);
  return (
    status === GRPC_STATUS.UNAVAILABLE ||
    status === GRPC_STATUS.DEADLINE_EXCEEDED ||
    status === GRPC_STATUS.RESOURCE_EXHAUSTED ||
    status === GRPC_STATUS.ABORTED
  );
}

/** The status's name for a log line or an error message (`UNAVAILABLE`, `code 3`). */
export function grpcStatusName(err: unknown): string {
  const status = grpcStatusOf(err);
  const name = Object.entries(GRPC_STATUS).find(([, code]) => code === status)?.[0];
  return name ?? (status === undefined ? 'not a gRPC status' : `code ${status}`);
}
