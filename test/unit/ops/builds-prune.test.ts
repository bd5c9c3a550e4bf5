import { strict as assert } from 'node:assert';
import { keepReason, type PruneCandidate } from '../../../src/ops/builds-prune';

const now = new Date('2026-12-01T00:00:00Z');
const daysAgo = (d: number) => new Date(now.getTime() - d * 86_400_000);
const build = (over: Partial<PruneCandidate> = {}): PruneCandidate => ({
  buildId: 'b'.repeat(64),
  storedAt: daysAgo(30),
  bytes: 260_000,
  known: true,
  current: false,
  ramping: false,
  openRuns: 0,
  ...over,
});
const rules = { now, olderThanDays: 7, keep: 3 };

describe('builds prune: only code no run can need goes', () => {
  it('removes an old, drained build of the deployment, neither current nor ramping nor among the newest', () => {
    assert.equal(keepReason(build(), 3, rules), undefined);
  });

  it('keeps every build that a run or a rollback may need, saying why', () => {
    assert.match(keepReason(build({ known: false }), 5, rules)!, /not one of the deployment's/);
    assert.equal(keepReason(build({ current: true }), 5, rules), 'current');
    assert.equal(keepReason(build({ ramping: true }), 5, rules), 'ramping');
    assert.match(keepReason(build(), 2, rules)!, /one of the 3 newest/);
    assert.match(keepReason(build({ storedAt: daysAgo(2) }), 5, rules)!, /stored 2\.0 day/);
    assert.match(keepReason(build({ openRuns: 1 }), 5, rules)!, /1 open run/);
    assert.match(keepReason(build({ openRuns: undefined }), 5, rules)!, /uncounted/);
  });
});
