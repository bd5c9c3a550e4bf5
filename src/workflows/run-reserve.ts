// What a run may still write to its history (run-budget.ts reads it with Temporal's own count):
// its calls running or waiting, its parked calls' un-parking, its owed undos, its ending. Pure.
import {
  callReserve,
  ENDING_RESERVE,
  PARKED_RESERVE,
  payloadBytes,
  type Usage,
} from './run-budget';
import { isActive, type RunState } from './run-state';
import type { StackEntry } from './run-types';

/** Each undo's input size, measured once. */
const undoBytes = new WeakMap<StackEntry, number>();

/**
 * What the run may still write (run-budget.ts): every call running or waiting (its rounds may
 * still schedule it), every undo it owes, and its ending (the settlement, the close). A parked
 * call goes on only through an operator's retry, which the budget checks then with the call's
 * own cost: only its un-parking is reserved.
 */
export function reservedOf(state: RunState): Usage {
  const total = { ...ENDING_RESERVE };
  const add = (u: Usage) => {
    total.events += u.events;
    total.bytes += u.bytes;
  };
  for (const call of state.calls.values()) {
    if (call.state === 'parked') add(PARKED_RESERVE);
    else if (isActive(call)) add(callReserve(call.inputBytes ?? 0));
    const undo = call.compensation;
    if (!undo || call.compensated) continue;
    let bytes = undoBytes.get(undo);
    if (bytes === undefined) undoBytes.set(undo, (bytes = payloadBytes(undo.input)));
    add(callReserve(bytes));
  }
  return total;
}
