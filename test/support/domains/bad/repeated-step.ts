// A saga whose compensation takes a step's name: two calls would share one key.
import { defineSaga } from '../../../../src/workflow';

type Acts = {
  charge(i: { key: string }): Promise<void>;
  refund(i: { key: string }): Promise<void>;
};

export const repeatedStep = defineSaga<{ id: string }, Acts>({
  name: 'repeatedStep',
  domain: 'repeats',
  entity: { kind: 'thing', id: (d) => d.id },
  steps: [
    {
      name: 'charge',
      activity: 'charge',
      retry: 'foreign',
      input: ({ key }) => ({ key }),
      compensate: {
        name: 'charge',
        activity: 'refund',
        retry: 'foreign',
        input: ({ key }) => ({ key }),
      },
    },
  ],
});
