// Recorded histories as fixtures: every payload decoded, so a fixture replays on any
// checkout, whatever encryption key wrote it (docs/deploying.md, "Replay before you deploy").
import type { PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;
type Payload = temporal.api.common.v1.IPayload;

/** A Payload message (decoded protos are reflection objects, so the shape decides). */
function isPayload(node: unknown): node is Payload {
  return (
    typeof node === 'object' &&
    node !== null &&
    (node as Payload).data instanceof Uint8Array &&
    typeof (node as Payload).metadata === 'object'
  );
}

/**
 * A recorded history with every payload decoded by `codecs` (the test's encryption), so the
 * fixture replays on any checkout: a payload encrypted with one stack's dev key ring is
 * unreadable on every other one (CI's fresh clone included). Workflow inputs, results, memos,
 * markers and user metadata alike: anything that is a Payload is decoded in place.
 */
export async function plainHistory(history: History, codecs: PayloadCodec[]): Promise<History> {
  const copy = temporal.api.history.v1.History.decode(
    temporal.api.history.v1.History.encode(history).finish(),
  );
  const decode = async (payload: Payload) => {
    let decoded = [payload];
    for (const codec of [...codecs].reverse()) decoded = await codec.decode(decoded);
    return decoded[0]!;
  };
  const visit = async (node: unknown): Promise<unknown> => {
    if (isPayload(node)) return decode(node);
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) node[i] = await visit(node[i]);
      return node;
    }
    if (node && typeof node === 'object' && !(node instanceof Uint8Array)) {
      const record = node as Record<string, unknown>;
      for (const key of Object.keys(record)) record[key] = await visit(record[key]);
    }
    return node;
  };
  await visit(copy);
  return copy;
}

/** How many payloads of a history are still encrypted (a fixture must hold none). */
export function encryptedPayloads(history: History, encoding: string): number {
  let count = 0;
  const visit = (node: unknown): void => {
    if (isPayload(node)) {
      const value = node.metadata?.encoding;
      if (value && Buffer.from(value).toString('utf8') === encoding) count++;
      return;
    }
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === 'object' && !(node instanceof Uint8Array))
      Object.values(node).forEach(visit);
  };
  visit(history);
  return count;
}
