import type { WorkflowHandle } from '@temporalio/client';
import { orderStatusQuery, type OrderStatus } from '../domains/orders/workflows/order-definitions';

/** A query to a running order needs a worker; without one it would hang, so it is capped. */
export const QUERY_TIMEOUT_MS = 5000;

/**
 * The run's live status, or why it could not be had (no worker, closed, …). `query`: the
 * domain's status query (default the order's `orderStatus`; a saga's default is `status`).
 */
export async function queryStatus<T = OrderStatus>(
  handle: WorkflowHandle,
  query: string = orderStatusQuery.name,
): Promise<T | { error: string }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ error: string }>((resolve) => {
    timer = setTimeout(
      () => resolve({ error: `no answer in ${QUERY_TIMEOUT_MS} ms (is a worker running?)` }),
      QUERY_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([handle.query<T>(query), timeout]).catch((err: unknown) => ({
      error: (err as Error).message,
    }));
  } finally {
    clearTimeout(timer);
  }
}
