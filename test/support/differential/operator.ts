// The operator of a differential case, one for both sides: when the run has nothing left to
// do but wait for someone (a call parked, nothing else in flight), it answers the parked call
// from the case's seeded sequence, as the property test's operator does: retry (sometimes
// after the provider's permanent fault was fixed), resolve, or cancel; after five rounds it
// resolves, so every run ends.
import { stepKey } from '../../../src/workflows/step-key';
import { randOf } from '../run-model/generate';
import type { Provider } from '../run-model/provider';

/** What the operator sends: a signal name and its argument. */
export interface OperatorMove {
  /** `step choice`, as Observed.parks records it. */
  said: string;
  signal: 'retryStep' | 'resolveStep' | 'cancel';
  arg: { by: string; step?: string; reason?: string };
}

/** The operator of the case `seed` on entity `entityId`, acting on `provider`'s faults. */
export function createOperator(seed: number, entityId: string, provider: Provider) {
  const pick = randOf(seed + 1);
  let round = 0;
  return (step: string): OperatorMove => {
    const choice =
      round++ > 5 ? 'resolve' : (['retry', 'retry', 'resolve', 'cancel'] as const)[pick(4)]!;
    const said = `${step} ${choice}`;
    if (choice === 'cancel')
      return { said, signal: 'cancel', arg: { reason: 'operator', by: 'operator' } };
    if (choice === 'resolve') return { said, signal: 'resolveStep', arg: { by: 'operator', step } };
    const [name, ...item] = step.split(':');
    const rec = provider.keys.get(
      stepKey('model', entityId, name!, item.length ? item.join(':') : undefined),
    );
    // The provider's permanent fault is fixed before the retry, half of the time.
    if (rec && pick(2) === 0) rec.cleared = true;
    return { said, signal: 'retryStep', arg: { by: 'operator', step } };
  };
}
