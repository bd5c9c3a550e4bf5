// The workflow the emulator's history accounting is calibrated against (calibrate.ts): one of
// each thing a run writes to history, with payloads of known sizes, on the real dev server.
// Workflow code.
import {
  ActivityCancellationType,
  CancellationScope,
  condition,
  defineSignal,
  defineUpdate,
  executeChild,
  getExternalWorkflowHandle,
  type ActivityOptions,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  upsertMemo,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import {
  ApplicationFailure,
  defineSearchAttributeKey,
  SearchAttributeType,
} from '@temporalio/common';

type Acts = { echo(i: { key: string; pad: string; out: number }): Promise<{ pad: string }> };

const STEP = defineSearchAttributeKey('Step', SearchAttributeType.KEYWORD);
export const poke = defineSignal<[{ pad: string }]>('poke');
export const answer = defineUpdate<string, [{ ok: boolean }]>('answer');

const OPTIONS = {
  startToCloseTimeout: '10 seconds',
  retry: {
    initialInterval: '100 milliseconds',
    maximumAttempts: 3,
    nonRetryableErrorTypes: ['Declined'],
  },
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
} satisfies ActivityOptions;
const remote = proxyActivities<Acts>(OPTIONS);
const short = proxyActivities<Acts>({
  ...OPTIONS,
  startToCloseTimeout: '1 second',
  retry: { maximumAttempts: 1 },
});
const local = proxyLocalActivities<Acts>({ startToCloseTimeout: '10 seconds' });

/** Does one of each, in its own workflow task where it can, so each event is measured alone. */
export async function calibrated(sizes: {
  small: number;
  large: number;
  childId: string;
}): Promise<string> {
  const pad = (n: number) => 'x'.repeat(n);
  let poked = 0;
  let answered = 0;
  setHandler(poke, () => void poked++);
  setHandler(
    answer,
    () => {
      answered++;
      return 'ok';
    },
    {
      validator: ({ ok }) => {
        if (!ok) throw new Error('refused');
      },
    },
  );
  await remote.echo({ key: 'a', pad: pad(sizes.small), out: sizes.small });
  await remote.echo({ key: 'b', pad: pad(sizes.large), out: sizes.large });
  await remote.echo({ key: 'fail-once', pad: '', out: 0 });
  await local.echo({ key: 'l', pad: pad(sizes.small), out: sizes.large });
  await sleep(1);
  upsertSearchAttributes([{ key: STEP, value: 'waiting' }]);
  upsertMemo({ attention: { step: 'x', cause: pad(sizes.small) } });
  await condition(() => poked > 0 && answered > 0);
  const scope = new CancellationScope();
  const slow = scope.run(() => remote.echo({ key: 'slow', pad: '', out: 0 }));
  await sleep(1);
  scope.cancel();
  await slow.catch(() => undefined);
  await executeChild(calibratedChild, { workflowId: sizes.childId, args: [] });
  // A summary on an activity and a timer (the engine sets one on each), a business failure,
  // a start-to-close timeout, a cancel before any attempt, a cancelled timer, a failed local
  // activity, a failed child and a signal to a workflow that does not exist.
  const summary = 's'.repeat(50);
  await remote.echo.executeWithOptions({ ...OPTIONS, summary }, [{ key: 'c', pad: '', out: 0 }]);
  await sleep(1, { summary } as never);
  await remote.echo({ key: 'decline', pad: '', out: 0 }).catch(() => undefined);
  await short.echo({ key: 'timeout', pad: '', out: 0 }).catch(() => undefined);
  const never = new CancellationScope();
  const queued = never.run(() => remote.echo({ key: 'never', pad: '', out: 0 }));
  never.cancel();
  await queued.catch(() => undefined);
  const timer = new CancellationScope();
  const slept = timer.run(() => sleep(60_000));
  await sleep(1);
  timer.cancel();
  await slept.catch(() => undefined);
  await local.echo({ key: 'decline', pad: '', out: 0 }).catch(() => undefined);
  await executeChild(calibratedChild, { workflowId: `${sizes.childId}-2`, args: [true] }).catch(
    () => undefined,
  );
  await getExternalWorkflowHandle(`${sizes.childId}-none`)
    .signal(poke, { pad: '' })
    .catch(() => undefined);
  return pad(sizes.small);
}

export async function calibratedChild(fail?: boolean): Promise<string> {
  if (fail) throw ApplicationFailure.create({ type: 'KidFailed', message: 'the child failed' });
  return 'done';
}

/** `n` one-millisecond sleeps in a row: the events a poll loop writes per turn. */
export async function sleeps(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await sleep(1);
}
