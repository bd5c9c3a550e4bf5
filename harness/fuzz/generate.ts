import { createPrng } from '../../src/util/prng';
import { createRand } from './hostile';
import { huge, HUGE_AT, KINDS, type Built, type Ctx } from './kinds';
import type { FuzzMessage } from './message';

export {
  CODEC_NAMES,
  FUZZ_EVENT_TYPE,
  headersOf,
  type Expect,
  type FuzzHeaders,
  type FuzzMessage,
  type HeaderValue,
} from './message';

export interface FuzzStream {
  messages: FuzzMessage[];
  countsByKind: Record<string, number>;
}

/** The seeded stream: same seed, prefix and partitions → the same messages. */
export function generateFuzzStream(options: {
  messages: number;
  seed: number;
  prefix: string;
  partitions: number;
  skus: readonly string[];
  /** Kinds not to generate. */
  skipKinds?: readonly string[];
}): FuzzStream {
  const skip = new Set(options.skipKinds ?? []);
  const kinds = KINDS.filter(([kind]) => !skip.has(kind));
  const totalWeight = kinds.reduce((s, [, w]) => s + w, 0);
  if (kinds.length === 0) throw new Error('every message kind is skipped');
  const rand = createRand(createPrng(options.seed));
  const messages: FuzzMessage[] = [];
  const valid: FuzzMessage[] = [];
  const countsByKind: Record<string, number> = {};
  for (let seq = 0; seq < options.messages; seq++) {
    const ctx: Ctx = { rand, prefix: options.prefix, seq, skus: options.skus, valid };
    let kind = 'huge-value';
    let built: Built;
    const hugeHere =
      HUGE_AT.has(seq % 1_000) || (options.messages < 1_000 && seq === options.messages >> 1);
    if (hugeHere && !skip.has('huge-value')) {
      built = huge(ctx);
    } else {
      let roll = rand.next() * totalWeight;
      const entry = kinds.find(([, w]) => (roll -= w) < 0) ?? kinds[kinds.length - 1]!;
      kind = entry[0];
      built = entry[2](ctx);
    }
    const original =
      built.expect === 'duplicate' ? valid.find((v) => v.value === built.value) : undefined;
    const message: FuzzMessage = {
      ...built,
      seq,
      kind,
      partition: original?.partition ?? seq % options.partitions,
    };
    if (message.expect === 'start') valid.push(message);
    messages.push(message);
    countsByKind[kind] = (countsByKind[kind] ?? 0) + 1;
  }
  return { messages, countsByKind };
}
