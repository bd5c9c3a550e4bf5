/**
 * The bench as the starter of a stream's workflows, instead of the bridge: each record
 * translated by the bridge's own translation and started with the bridge's own start call
 * (startOrDeduplicate), so the requests are the ones the bridge sends; without Kafka
 * consumption, the ledger and the bridge's process. `bare` strips the start of its metadata
 * (memo, static summary and details, every search attribute but EventId) on the way to the
 * server: what the metadata costs, with the run's code unchanged (a run started with EventId
 * upserts no search attribute of its own: src/workflows/run-face.ts).
 */
import type { Client, WorkflowStartOptions } from '@temporalio/client';
import { DEFAULT_ROUTES } from '../../src/domains';
import type { KafkaRecord } from '../../src/events/event-message';
import { translateMessage, type StartCommand } from '../../src/events/translate';
import { startOrDeduplicate } from '../../src/kafka-bridge/workflow-starter';
import { SEARCH_ATTRIBUTE } from '../../src/temporal/search-attributes';
import { runLimited } from '../../src/util/run-limited';

/** The start commands of a stream's records, as the bridge translates them (poison dropped). */
export function startCommandsOf(records: readonly KafkaRecord[]): StartCommand[] {
  return records
    .map((r) =>
      translateMessage(
        { key: Buffer.from(r.key), value: Buffer.from(r.value), headers: r.headers },
        DEFAULT_ROUTES,
        { maxBytes: 1 << 20 },
      ),
    )
    .filter((t): t is StartCommand => t.kind === 'start');
}

/**
 * A client whose starts carry no memo, summary, details or search attribute but EventId; the
 * rest of the request (ID, policies, input, task queue) is the caller's.
 */
function bareStarts(client: Client): Client {
  const start = (type: string, options: WorkflowStartOptions) =>
    client.workflow.start(type, {
      ...options,
      memo: undefined,
      staticSummary: undefined,
      staticDetails: undefined,
      typedSearchAttributes: (
        (options.typedSearchAttributes ?? []) as Array<{ key: { name: string } }>
      ).filter(
        (p) => p.key.name === SEARCH_ATTRIBUTE.eventId.name,
      ) as WorkflowStartOptions['typedSearchAttributes'],
    });
  return { workflow: { start } } as unknown as Client;
}

/** Starts every command's workflow on `taskQueue`, `concurrency` at a time (the bridge's 32). */
export async function startDirect(
  client: Client,
  taskQueue: string,
  commands: readonly StartCommand[],
  options: { concurrency: number; bare: boolean },
): Promise<void> {
  const starter = options.bare ? bareStarts(client) : client;
  await runLimited(
    commands.map((cmd, i) => async () => {
      await startOrDeduplicate(starter, taskQueue, cmd, {
        topic: 'bench',
        partition: 0,
        offset: String(i),
      });
    }),
    options.concurrency,
  );
}
