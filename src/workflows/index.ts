// The engine's own workflows, bundled for Temporal's sandbox beside every registered domain's
// (src/worker/workflow-bundle.ts): one workflow per file, re-exported here.
export { smokeCheck } from './smoke-check';
