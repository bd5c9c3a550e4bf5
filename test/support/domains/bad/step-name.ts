// A saga whose step name cannot be part of a key (`sendEmail`): refused at start.
import { defineSaga } from '../../../../src/workflow';

type Acts = { sendEmail(i: { key: string }): Promise<void> };

export const badStepName = defineSaga<{ id: string }, Acts>({
  name: 'badStepName',
  domain: 'bad-steps',
  entity: { kind: 'thing', id: (d) => d.id },
  steps: [
    { name: 'sendEmail', activity: 'sendEmail', retry: 'foreign', input: ({ key }) => ({ key }) },
  ],
});
