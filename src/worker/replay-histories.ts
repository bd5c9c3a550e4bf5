// A team's replay guard, second half: a folder of recorded histories replayed against the
// workflow code as it is now. A change that would change a run's commands (a step renamed,
// inserted, removed or reordered without a patch) fails here, before a deploy, not on the
// runs in flight after it.
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import type { Domain } from '../engine/define-domain';
import { HistoryReplayError } from './history-fixtures';
import { prepareWorkflowBundle } from './workflow-bundle';

/** Options of replayHistories. */
export interface ReplayHistoriesOptions {
  /**
   * The domains whose workflows the histories ran on (the engine's own are always in).
   * @example domains: DOMAINS
   */
  domains: readonly Domain[];
  /**
   * A folder of fixtures: `.json` (recordHistory's) and `.pb` (history protobuf) files.
   * @example folder: 'test/histories'
   */
  folder: string;
}

/** A fixture file's history. */
function readFixture(path: string): temporal.api.history.v1.IHistory {
  return extname(path) === '.pb'
    ? temporal.api.history.v1.History.decode(readFileSync(path))
    : temporal.api.history.v1.History.fromObject(JSON.parse(readFileSync(path, 'utf8')));
}

/**
 * Replays every fixture of `folder` against the domains' workflows as the worker would bundle
 * them now; resolves with the files replayed, or throws a HistoryReplayError naming each one
 * that does not replay. An empty folder throws too: no fixture proves nothing.
 *
 * @example
 * it('runs recorded before this change still replay', () => replayHistories({ domains: DOMAINS, folder: 'test/histories' }));
 */
export async function replayHistories(options: ReplayHistoriesOptions): Promise<string[]> {
  const files = readdirSync(options.folder)
    .filter((f) => ['.json', '.pb'].includes(extname(f)))
    .sort();
  if (files.length === 0)
    throw new HistoryReplayError([
      { file: options.folder, error: 'no .json or .pb fixture in it' },
    ]);
  const histories = files.map((file) => ({
    workflowId: file,
    history: readFixture(join(options.folder, file)),
  }));
  const failures: Array<{ file: string; error: string }> = [];
  const replays = Worker.runReplayHistories(
    { workflowBundle: await prepareWorkflowBundle({ domains: options.domains }) },
    histories,
  );
  for await (const r of replays)
    if (r.error) failures.push({ file: r.workflowId, error: String(r.error) });
  if (failures.length > 0) throw new HistoryReplayError(failures);
  return files;
}
