import assert from 'node:assert/strict';
import { TypedSearchAttributes } from '@temporalio/common';
import { runStepOf, stepTerm } from '../../../src/temporal/run-step';
import { SEARCH_ATTRIBUTE } from '../../../src/temporal/search-attributes';

const info = (status: string, step?: string) => ({
  status: { name: status } as never,
  typedSearchAttributes: new TypedSearchAttributes(
    step === undefined ? [] : [{ key: SEARCH_ATTRIBUTE.step, value: step }],
  ),
});

describe('run step (visibility)', () => {
  it('a run closed Completed without Step ended completed; Step wins when written', () => {
    assert.equal(runStepOf(info('COMPLETED')), 'completed');
    assert.equal(runStepOf(info('COMPLETED', 'duplicate')), 'duplicate');
    assert.equal(runStepOf(info('RUNNING')), undefined);
    assert.equal(runStepOf(info('RUNNING', 'waiting')), 'waiting');
    assert.equal(runStepOf(info('TERMINATED')), undefined);
  });

  it('queries completed runs by status and an unset Step (or the Step older runs wrote), any other step by its value', () => {
    assert.equal(
      stepTerm('completed'),
      `(Step = 'completed' OR (ExecutionStatus = 'Completed' AND Step IS NULL))`,
    );
    assert.equal(stepTerm('needs_attention'), `Step = 'needs_attention'`);
  });
});
