// The differential test's domain on the real server: the generated bodies' workflows and the
// two activities of their steps, `act` and `undo`, answered in the test's own process by the
// recorder of the case whose entity the key names (observe.ts): the same provider function
// as the emulator's side.
import { Context } from '@temporalio/activity';
import { z } from 'zod';
import { defineDomain, defineRoute } from '../../../../src';
import type { Recorder } from '../observe';

/** The recorder of each case in flight, by entity ID. */
const recorders = new Map<string, Recorder>();

/** Routes the calls of `entityId`'s run to `rec` until `forget` is called. */
export function answerEntity(entityId: string, rec: Recorder): { forget(): void } {
  recorders.set(entityId, rec);
  return { forget: () => recorders.delete(entityId) };
}

/** One attempt of act or undo: the key (`model:<entity>:<step>[:<item>]`) names the case. */
async function attempt(activity: 'act' | 'undo', input: { key: string }): Promise<unknown> {
  const entityId = input.key.split(':')[1]!;
  const rec = recorders.get(entityId);
  if (!rec) throw new Error(`no differential case answers entity ${entityId} (key ${input.key})`);
  const info = Context.current().info;
  return rec.answer(
    { activity, input },
    {
      attempt: info.attempt,
      round: false,
      now: Date.now(),
      local: false,
    },
  );
}

export const models = defineDomain({
  name: 'models',
  entity: 'model',
  routes: [
    defineRoute({
      eventType: 'ModelDue',
      schema: z.looseObject({ id: z.string() }),
      workflow: 'differential',
    }),
  ],
  workflowsPath: require.resolve('./workflows'),
  activities: () => ({
    act: (input: { key: string }) => attempt('act', input),
    undo: (input: { key: string }) => attempt('undo', input),
  }),
});
