import type { BuildRefusal } from '../db/workflow-build-store';

/** One build of the deployment as a refresh found it. */
export interface BuildReport {
  buildId: string;
  current: boolean;
  /** Open runs pinned to it. */
  openRuns: number;
  /**
   * Who runs them: this process's main worker, a drain worker here, its own workers (this
   * process drains nothing: WORKER_MAX_DRAINS=0), a drain here when its turn comes (more
   * builds than WORKER_MAX_DRAINS take turns: `waiting-turn`), or nobody here: its code is not
   * stored (`missing`) or is refused (`refused`), its drain worker could not be made
   * (`drain-failed`), or the one drain this process may run serves the current build
   * (`drain-limit`); `none` when it needs nobody (no open runs, not current).
   */
  servedBy:
    | 'this-worker'
    | 'drain'
    | 'waiting-turn'
    | 'its-workers'
    | 'missing'
    | 'refused'
    | 'drain-failed'
    | 'drain-limit'
    | 'none';
  /**
   * Why its stored code is refused: a drain refused it, or (this worker's own build) another
   * code is stored under its ID.
   */
  refused?: BuildRefusal;
}
