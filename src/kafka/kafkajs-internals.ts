import { createRequire } from 'node:module';

/**
 * What the KafkaJS patches of this folder share (kafka-decoder-patch.ts, kafka-fetch-patch.ts,
 * kafka-request-queue-patch.ts): each replaces part of KafkaJS's internals, written against
 * one version's source.
 */

/** The KafkaJS versions whose internals the patches mirror. */
const PATCHED_KAFKAJS = /^2\.2\./;

/** `require` of KafkaJS's internal modules (`kafkajs/src/...`), and its module cache. */
export const requireKafkaJs = createRequire(__filename);

/**
 * Throws unless the installed KafkaJS is a version the patches were written for: a patch of
 * another version's internals could break it silently. `patched` says what the patch does,
 * `recheck` what to compare it with.
 *
 * @example
 * assertPatchedKafkaJs(
 *   "kafka-fetch-patch corrects KafkaJS 2.2's read_committed fetch",
 *   'src/kafka/kafka-fetch-patch.ts against its consumer/batch.js',
 * );
 */
export function assertPatchedKafkaJs(patched: string, recheck: string): void {
  const version = (requireKafkaJs('kafkajs/package.json') as { version: string }).version;
  if (!PATCHED_KAFKAJS.test(version)) {
    throw new Error(`${patched}; KafkaJS ${version} is installed: re-check ${recheck}`);
  }
}
