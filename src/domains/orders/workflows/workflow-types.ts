// The order workflows' types as Temporal knows them: the names src/domains/orders/workflows/index.ts
// exports. Pure (a type-only import): the routes, visibility queries and clients import it.
// Renaming a workflow function without updating this table fails the typecheck.
import type * as workflows from './index';

/** Name of an order workflow. */
export type WorkflowTypeName = keyof typeof workflows;

/** Every order workflow type, by name. */
export const WORKFLOW_TYPE = {
  orderFulfillment: 'orderFulfillment',
  orderCancellation: 'orderCancellation',
} as const satisfies { [K in WorkflowTypeName]: K };
