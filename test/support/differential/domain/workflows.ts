// The differential test's workflows on the real server (workflow code): a generated case's
// body, interpreted by the property test's own definition (run-model/body.ts), and the child
// its `child` nodes start, which fails when the case says so.
import { ApplicationFailure, workflowInfo } from '@temporalio/workflow';
import type { EventWorkflowInput } from '../../../../src/events/workflow-input';
import { runWorkflow } from '../../../../src/workflows/define-workflow';
import { workflowRuntime } from '../../../../src/workflows/saga-runtime';
import { definitionOf } from '../../run-model/body';
import { generateCase, type Case } from '../../run-model/generate';
import { seedOfWorkflowId } from '../cases';

/** The event data of a differential run: its entity and its whole case. */
export interface DiffData {
  id: string;
  case: Case;
}

/** A generated case's body as a workflow: the case travels in the input. */
export async function differential(input: EventWorkflowInput<DiffData>) {
  return runWorkflow(definitionOf(input.data.case) as never, input, workflowRuntime());
}

/** A child of a case (`<parent ID>/<name>`): fails when its case's childEnds says so. */
export async function kid(): Promise<object> {
  const id = workflowInfo().workflowId;
  const name = id.slice(id.lastIndexOf('/') + 1);
  if (generateCase(seedOfWorkflowId(id)).childEnds[name] === 'failed')
    throw ApplicationFailure.create({ type: 'KidFailed', message: 'the child failed' });
  return {};
}
