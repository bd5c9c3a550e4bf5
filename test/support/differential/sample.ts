// The sample of a differential test run: generated cases from a seed on, each emulated under
// several variants (emulate.ts), those left out counted by reason (cases.ts says why).
import { uniqueName } from '../services';
import {
  cancelBeforeStart,
  differentialCase,
  entityOf,
  MAX_CASE_MS,
  MAX_PARKED_MS,
  workflowIdPrefix,
  type DiffCase,
} from './cases';
import { emulateCase, type Emulated } from './emulate';
import { differences } from './observe';

/** Emulator runs of one case under other delivery orders and attempt times. */
const VARIANTS = 6;

/** A case of the sample and its emulated run (variant 0). */
export interface Sampled {
  dc: DiffCase;
  emulated: Emulated;
}

/** A seed's case and its emulated run, or why it is left out. */
async function sampled(seed: number): Promise<Sampled | string> {
  const c = differentialCase(seed);
  if ('excluded' in c) return c.excluded;
  const dc: DiffCase = {
    case: c,
    entityId: entityOf(seed),
    workflowId: `${workflowIdPrefix(seed)}${uniqueName('run')}`,
  };
  const emulated = await emulateCase(dc, 0);
  if (emulated.ms > (emulated.observed.parks.length > 0 ? MAX_PARKED_MS : MAX_CASE_MS))
    return 'too long';
  for (let v = 1; v < VARIANTS; v++) {
    const other = await emulateCase(dc, v);
    if (differences(emulated.observed, other.observed).length > 0) return 'a race';
  }
  return { dc, emulated };
}

/**
 * `count` cases from seed `base` on (within 20 × count seeds). A cancel before the start is a
 * quarter of the generator's cancels but makes no call: at most a tenth of the sample has one.
 * An emulator run that throws is a failure of its seed.
 */
export async function drawSample(base: number, count: number) {
  const sample: Sampled[] = [];
  const left: Record<string, number> = {};
  const failures: Array<{ seed: number; what: string }> = [];
  let cancelledAtStart = 0;
  for (let seed = base; sample.length < count && seed < base + count * 20; seed++) {
    const got = await sampled(seed).catch((err: unknown) => {
      failures.push({ seed, what: `on the emulator: ${String(err)}` });
      return 'an error on the emulator';
    });
    const atStart = typeof got !== 'string' && cancelBeforeStart(got.dc.case) !== undefined;
    const why =
      atStart && cancelledAtStart >= Math.ceil(count / 10)
        ? 'a cancel before the start, past a tenth of the sample'
        : got;
    if (typeof why === 'string') left[why] = (left[why] ?? 0) + 1;
    else {
      sample.push(why);
      if (atStart) cancelledAtStart++;
    }
  }
  // The longest first: the server's runs, some at once, then end together.
  sample.sort((a, b) => b.emulated.ms - a.emulated.ms);
  const leftOut = Object.entries(left).map(([why, n]) => `${n} ${why}`);
  return { sample, leftOut: leftOut.join(', ') || 'none', failures };
}
