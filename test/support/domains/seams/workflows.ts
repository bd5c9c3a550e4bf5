// The seams test domain's workflows, one per seam of a run, on the engine's public workflow
// API only. Workflow code.
export { fallback } from './fallback';
export { branches } from './branches';
export { items } from './items';
export { settled } from './settled';
export { siblings } from './siblings';
export { approval, approveSeam } from './approval';
export { longest } from './longest';
export { fanout, limits } from './fanout';
