import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareChangedCode } from '../../../../harness/chaos/deploy';

describe('the chaos deploy fault', () => {
  it('still finds every change of both releases in the current code, so it deploys changed code', () => {
    const dir = mkdtempSync(join(tmpdir(), 'onceflow-deploy-'));
    try {
      const entry = prepareChangedCode(dir);
      assert.equal(entry, join(dir, 'src', 'worker', 'main.ts'));
      const order = readFileSync(
        join(dir, 'src/domains/orders/workflows/order-fulfillment.ts'),
        'utf8',
      );
      assert.match(order, /\[reserve, recheck, charge, email, announce\]/);
      const payout = readFileSync(join(dir, 'src/domains/payouts/workflows/payout.ts'), 'utf8');
      assert.match(payout, /steps\.tell\(/);
      const cart = readFileSync(join(dir, 'src/domains/carts/workflows/cart.ts'), 'utf8');
      assert.match(cart, /steps\['ship-notice'\]\(/);
      prepareChangedCode(dir, 2);
      const next = readFileSync(join(dir, 'src/domains/payouts/workflows/payout.ts'), 'utf8');
      assert.match(next, /steps\.inform\(/, 'the second release changes more');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
