// The `deploy` fault: a deploy of changed saga code in the middle of a chaos run, twice, with
// an operator's rollback between (harness/chaos/builds.ts). Each release is a copy of src/
// (under the stack's git-ignored folder, so it resolves this checkout's node_modules) with the
// changes a team makes: release 1 renames the order's email step (another key), inserts a step
// before its charge, renames the payout's notify step and the cart's notice step (in one of
// its two branches at once); release 2 renames the payout's step again. Every worker is
// stopped and started again on the copy: the runs in flight must finish on the build they
// started on (served from its stored code), new runs take the new one (or the one the
// operator rolled back to), nothing acts twice.
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../stack/paths';

/** One change to a file of the copy: the text it must find, and what replaces it. */
interface Change {
  file: string;
  find: string;
  replace: string;
}

const RELEASE_1: readonly Change[] = [
  {
    // Renamed: runs started after the deploy mail under order:<id>:confirm.
    file: 'domains/orders/workflows/order-definitions.ts',
    find: "  email: 'email',",
    replace: "  email: 'confirm',",
  },
  {
    // Inserted before the charge: another command sequence for every run after the reserve.
    file: 'domains/orders/workflows/order-fulfillment.ts',
    find: 'export const ORDER_STEPS = [reserve, charge, email, announce] as const;',
    replace: `const recheck = {
  name: 'recheck',
  activity: 'findOrderWorkflow',
  retry: 'own',
  input: ({ data }: { data: OrderPlacedData }) => ({ orderId: data.orderId }),
} as unknown as OrderStepRow;
export const ORDER_STEPS = [reserve, recheck, charge, email, announce] as const;`,
  },
  {
    file: 'domains/payouts/workflows/payout.ts',
    find: "    notify: {\n      activity: 'notifyBeneficiary'",
    replace: "    tell: {\n      activity: 'notifyBeneficiary'",
  },
  {
    file: 'domains/payouts/workflows/payout.ts',
    find: 'await steps.notify(',
    replace: 'await steps.tell(',
  },
  {
    // Renamed inside a branch of a Promise.all: carts after the deploy mail under ship-notice.
    file: 'domains/carts/workflows/cart.ts',
    find: "    notice: {\n      activity: 'mailCartCustomer'",
    replace: "    'ship-notice': {\n      activity: 'mailCartCustomer'",
  },
  {
    file: 'domains/carts/workflows/cart.ts',
    find: 'await steps.notice(',
    replace: "await steps['ship-notice'](",
  },
];

/** The releases the chaos run deploys in turn; each one's changes apply to src/ in order. */
export const RELEASES: ReadonlyArray<readonly Change[]> = [
  RELEASE_1,
  [
    ...RELEASE_1,
    {
      file: 'domains/payouts/workflows/payout.ts',
      find: "    tell: {\n      activity: 'notifyBeneficiary'",
      replace: "    inform: {\n      activity: 'notifyBeneficiary'",
    },
    {
      file: 'domains/payouts/workflows/payout.ts',
      find: 'await steps.tell(',
      replace: 'await steps.inform(',
    },
  ],
];

/** A changed copy could not be made: a change no longer finds its text (the code moved on). */
export class DeployCopyError extends Error {
  override readonly name = 'DeployCopyError';
}

/**
 * Copies src/ into `<dir>/src` and applies the changes of release `release` (1-based);
 * returns the worker entry of the copy. Throws naming the change that no longer applies, so a
 * refactor cannot quietly turn the fault into a redeploy of the same code.
 */
export function prepareChangedCode(dir: string, release = 1): string {
  const changes = RELEASES[release - 1];
  if (!changes) throw new DeployCopyError(`no release ${release} (there are ${RELEASES.length})`);
  const src = join(dir, 'src');
  if (existsSync(src)) rmSync(src, { recursive: true });
  cpSync(join(REPO_ROOT, 'src'), src, { recursive: true });
  for (const c of changes) {
    const path = join(src, c.file);
    const text = readFileSync(path, 'utf8');
    if (!text.includes(c.find))
      throw new DeployCopyError(`${c.file} no longer contains ${JSON.stringify(c.find)}`);
    writeFileSync(path, text.replace(c.find, c.replace));
  }
  return join(src, 'worker', 'main.ts');
}
