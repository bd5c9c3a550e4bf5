// A team's replay guard, first half: a finished run's history recorded into a fixture file,
// every payload decoded (the fixture replays on any checkout). Client side only: no worker.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { plainHistory } from '../temporal/plain-history';

/** Options of recordHistory. */
export interface RecordHistoryOptions {
  /** A client with the data converter the runs were written with (their encryption). */
  client: Client;
  /** The run to record (its latest run, unless `runId` names one). */
  workflowId: string;
  /** @example runId: handle.firstExecutionRunId */
  runId?: string;
  /**
   * Where the fixture goes: a `.json` file (the history's protobuf object form: enums by name,
   * bytes in base64; reviewable in a diff), or `.pb` (protobuf binary).
   * @example file: 'test/histories/gift-card-completed.json'
   */
  file: string;
}

/**
 * Records a run's history as a fixture for replayHistories: fetched whole, payloads decoded
 * with the client's codecs, written as history JSON. Record one of each way a run can go
 * (completed, a business failure, cancelled, waited, parked and retried) before a change.
 *
 * @example
 * await recordHistory({ client, workflowId: 'GiftCardBought:v:card-1@1', file: 'test/histories/completed.json' });
 */
export async function recordHistory(options: RecordHistoryOptions): Promise<void> {
  const { client } = options;
  const history = await client.workflow.getHandle(options.workflowId, options.runId).fetchHistory();
  const plain = await plainHistory(history, client.options.loadedDataConverter.payloadCodecs);
  mkdirSync(dirname(options.file), { recursive: true });
  writeFileSync(
    options.file,
    options.file.endsWith('.pb')
      ? temporal.api.history.v1.History.encode(plain).finish()
      : `${JSON.stringify(historyJson(plain), null, 1)}\n`,
  );
}

/** A history as JSON that fromObject reads back exactly (see replay-histories.ts). */
export function historyJson(history: temporal.api.history.v1.IHistory): object {
  return temporal.api.history.v1.History.toObject(
    temporal.api.history.v1.History.fromObject(history),
    { enums: String, longs: String, bytes: String, defaults: false },
  );
}

/** Fixtures that did not replay, each with why (a nondeterminism names the command). */
export class HistoryReplayError extends Error {
  override readonly name = 'HistoryReplayError';
  constructor(readonly failures: ReadonlyArray<{ file: string; error: string }>) {
    super(
      `${failures.length} recorded histor${failures.length === 1 ? 'y does' : 'ies do'} not replay on this code:\n` +
        failures.map((f) => `  ${f.file}: ${f.error}`).join('\n'),
    );
  }
}
