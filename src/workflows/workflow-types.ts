// The workflow types as Temporal knows them: the names of the functions src/workflows/index.ts
// exports. Pure (a type-only import): the bridge's routes, visibility queries and workflow code
// import it. Renaming a workflow function without updating this table fails the typecheck.
import type * as workflows from './index';

/** Name of a workflow the worker registers. */
export type WorkflowTypeName = keyof typeof workflows;

/** Every registered workflow type, by name. */
export const WORKFLOW_TYPE = {
  orderFulfillment: 'orderFulfillment',
  orderCancellation: 'orderCancellation',
  smokeCheck: 'smokeCheck',
} as const satisfies { [K in WorkflowTypeName]: K };
