// A loans domain as a team wrote it from the docs of b861635 (0.1.0: `waitFor` returns the
// value, `undefined` past the deadline), and its workflow as d482618's docs had it written
// (`waitFor` returning `{ timedOut }`). old-docs.test.ts runs the first on the packed package
// and compiles the second. The approval waits 10 seconds here instead of 20, for the test.

/** main.ts: the route, the activities (each records its effect once), the processes. */
export const LOANS_MAIN = `// main.ts: the route, the domain, and a worker and a bridge that run it.
import { z } from 'zod';
import { defineDomain, defineRoute, runBridge, runWorker, type ActivityDeps } from 'onceflow';

export const loanRequested = z.object({ loanId: z.string(), amountMinor: z.number().int() });
export type LoanRequested = z.infer<typeof loanRequested>;

export const activities = ({ pool }: ActivityDeps) => {
  const record = (key: string, what: string) =>
    pool.query('INSERT INTO effects VALUES ($1, $2) ON CONFLICT DO NOTHING', [key, what]);
  return {
    async reserveFunds({ key, amountMinor }: { key: string; amountMinor: number }) {
      await record(key, \`reserve \${amountMinor}\`);
    },
    async releaseFunds({ key }: { key: string }) {
      await record(key, 'release');
    },
    async openLoan({ key, loanId }: { key: string; loanId: string }) {
      await record(key, 'open');
      return { accountId: \`ACC-\${loanId}\` };
    },
    async mailContract({ key, accountId }: { key: string; accountId: string }) {
      await record(key, \`mail \${accountId}\`);
    },
  };
};

const loans = defineDomain({
  name: 'loans',
  entity: 'loan',
  routes: [defineRoute({ eventType: 'LoanRequested', schema: loanRequested, workflow: 'loan' })],
  workflowsPath: require.resolve('./workflows'),
  activities,
});
export const DOMAINS = [loans];
if (require.main === module)
  Promise.all([runWorker({ domains: DOMAINS }), runBridge({ domains: DOMAINS })]).catch((err) => {
    console.error(err);
    process.exit(1);
  });
`;

/** The workflow: `gate` reads the approval, `end` closes the body. */
const workflowWith = (
  gate: string,
  end = '',
) => `import { defineSignal } from '@temporalio/workflow';
import { defineWorkflow } from 'onceflow/workflow';
import type { activities, LoanRequested } from './main';

export const approveLoanSignal = defineSignal<[{ by: string }]>('approveLoan');

export const loan = defineWorkflow<LoanRequested, ReturnType<typeof activities>>()({
  name: 'loan',
  domain: 'loans',
  entity: { kind: 'loan', id: (d) => d.loanId },
  outcomes: ['declined'],
  steps: {
    reserve: {
      activity: 'reserveFunds',
      retry: 'own',
      compensate: { name: 'release', activity: 'releaseFunds', retry: 'own', input: () => ({}) },
    },
    open: { activity: 'openLoan', retry: 'foreign' },
    mail: { activity: 'mailContract', retry: 'foreign' },
  },
  async run({ data, steps, waitFor, fail }) {
    await steps.reserve({ amountMinor: data.amountMinor });
${gate}
    const { accountId } = await steps.open({ loanId: data.loanId });
    await steps.mail({ accountId });${end}
  },
});
`;

/**
 * workflows.ts as b861635's docs said to write it: the gate of the loans domain, which
 * asks only whether an answer came (so d482618's types accepted it, and approved every loan).
 */
export const LOANS_WORKFLOWS_B861635 = workflowWith(
  `    const approval = await waitFor('approval', approveLoanSignal, { timeout: '10 seconds' });
    if (!approval) return fail('declined', 'no approval within 10 seconds');`,
);

/** The same workflow as d482618's docs said to write it, returning who approved. */
export const LOANS_WORKFLOWS_D482618 = workflowWith(
  `    const approval = await waitFor('approval', approveLoanSignal, { timeout: '10 seconds' });
    if (approval.timedOut) return fail('declined', 'no approval within 10 seconds');`,
  `
    return { approvedBy: approval.value.by };`,
);
