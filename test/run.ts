/**
 * `npm test`: brings the stack up (or uses the one named by TEMPORAL_ADDRESS, KAFKA_BROKERS,
 * DATABASE_URL, or one already running from `npm run stack`), runs mocha over test/, tears
 * the stack down, checks that nothing was left behind, and ends with `N passed, N failed`.
 *
 *   npm test                      every test
 *   npm test -- test/unit         only files under a path (unit tests need no stack)
 *   npm test -- --grep ledger     only tests whose title matches
 *   npm test -- --production-topology
 *                                 the production topology's subset (test/topology/suite.ts)
 *                                 on a stack with the Temporal server and three brokers
 *   npm test -- --production-topology --with-chaos
 *                                 the same, then the topology's short chaos run
 */
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Mocha from 'mocha';
import { startPreparedStack } from '../harness/setup/dev-stack';
import { killStackNow, readStackState, type RunningStack } from '../harness/stack/stack';
import { Runtime } from '@temporalio/worker';
import { isAlive } from '../harness/stack/processes';
import { isPortFree } from '../harness/stack/ports';
import {
  PRODUCTION_TOPOLOGY,
  PRODUCTION_TOPOLOGY_CHAOS,
  PRODUCTION_TOPOLOGY_FILES,
} from './topology/suite';
import { flushRuntimeLog, testLog, testRuntimeOptions } from './support/test-log';
import { reportTestLogs } from './support/test-log-report';

const ROOT = resolve(__dirname, '..');

function testFiles(target: string): string[] {
  const full = resolve(ROOT, target);
  if (statSync(full).isFile()) return [full];
  return readdirSync(full, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => join(full, f))
    .sort();
}

function parseArgs(argv: string[]): { targets: string[]; grep?: string } {
  const targets: string[] = [];
  let grep: string | undefined;
  let chaos = false;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--grep' || argv[i] === '-g') grep = argv[++i];
    else if (argv[i] === '--production-topology') {
      // The stack this run starts (and every stack its tests start) takes these settings.
      Object.assign(process.env, PRODUCTION_TOPOLOGY);
      targets.push(...PRODUCTION_TOPOLOGY_FILES);
    } else if (argv[i] === '--with-chaos') chaos = true;
    else targets.push(argv[i]!);
  }
  if (chaos) targets.push(PRODUCTION_TOPOLOGY_CHAOS);
  return { targets: targets.length ? targets : ['test'], grep };
}

/**
 * A stray `.only` would silently run one test and skip the rest; a skipped or pending test
 * (`it.skip`, `xit`, `describe.skip`, `this.skip()`, an `it` without a body) asserts nothing.
 * Both fail the run: `.only` and `describe.skip` while loading (thrown by mocha), the others
 * as a failed test each.
 */
const FORBIDDEN = {
  only: 'ERR_MOCHA_FORBIDDEN_EXCLUSIVITY',
  pending: 'Pending test forbidden',
} as const;

/** Where in the test files a load error was thrown (file:line), from its stack. */
function whereIn(err: Error, files: string[]): string | undefined {
  const line = (err.stack ?? '').split('\n').find((l) => files.some((f) => l.includes(f)));
  return line
    ?.trim()
    .replace(/^at\s+(\S+\s+\()?/, '')
    .replace(/\)$/, '');
}

/** A clear message for a file mocha refused to load. */
function describeLoadError(err: Error & { code?: string }, files: string[]): string {
  const where = whereIn(err, files) ?? 'a test file';
  if (err.code === FORBIDDEN.only)
    return `\`.only\` is forbidden (it would skip every other test): remove it at ${where}`;
  if (err.message.includes(FORBIDDEN.pending))
    return `a skipped suite (describe.skip / xdescribe) is forbidden: make it run or delete it, at ${where}`;
  return `test run failed: ${err.stack ?? String(err)}`;
}

function runMocha(files: string[], grep?: string): Promise<{ passes: number; failures: number }> {
  const mocha = new Mocha({
    timeout: 120_000,
    reporter: 'spec',
    grep,
    forbidOnly: true,
    forbidPending: true,
  });
  files.forEach((f) => mocha.addFile(f));
  return mocha.loadFilesAsync().then(
    () =>
      new Promise((done) => {
        let pending = 0;
        const runner = mocha.run(() => {
          if (pending > 0)
            process.stdout.write(
              `${pending} skipped or pending test(s) failed the run: it.skip, xit, this.skip() ` +
                'and an `it` without a body are forbidden (each test must run and assert)\n',
            );
          done({ passes: runner.stats?.passes ?? 0, failures: runner.stats?.failures ?? 0 });
        });
        runner.on('fail', (_test, err: Error) => {
          if (err?.message === FORBIDDEN.pending) pending++;
        });
        reportTestLogs(runner, testLog, { flush: flushRuntimeLog });
      }),
    (err: Error & { code?: string }) => {
      throw new LoadError(describeLoadError(err, files));
    },
  );
}

/** A test file could not be loaded; the message says why and where. */
class LoadError extends Error {
  override readonly name = 'LoadError';
}

/** After teardown: every stack process gone and every stack port free again. */
async function checkNothingLeft(stack: RunningStack): Promise<string[]> {
  const problems: string[] = [];
  for (const [name, pid] of Object.entries(stack.state.pids)) {
    if (isAlive(pid)) problems.push(`${name} (pid ${pid}) still running`);
  }
  for (const port of stack.state.ports) {
    if (!(await isPortFree(port))) problems.push(`port ${port} still in use`);
  }
  return problems;
}

async function main(): Promise<number> {
  // Workers in tests log warnings and errors into the test log, printed only with a failing
  // test (reportTestLogs): the spec reporter is the readable output.
  Runtime.install(testRuntimeOptions(testLog));
  const { targets, grep } = parseArgs(process.argv.slice(2));
  const files = targets.flatMap(testFiles);
  const needsStack = files.some((f) => !f.startsWith(join(ROOT, 'test', 'unit')));
  let passed = 0;
  let failed = 0;
  let stack: RunningStack | undefined;

  // Ctrl-C or a kill mid-run: take the stack down with us.
  const abort = (signal: NodeJS.Signals) => {
    process.stderr.write(`\n${signal}: stopping the stack\n`);
    void (stack?.owned ? stack.stop() : Promise.resolve()).finally(() => process.exit(130));
  };
  process.once('SIGINT', abort);
  process.once('SIGTERM', abort);
  const started = Date.now();
  process.on('exit', () => {
    // Also covers a crash while the stack was still starting (stack not yet assigned): a
    // state file written after this run began belongs to this run.
    const state = readStackState();
    if (stack?.owned || (state && Date.parse(state.startedAt) >= started)) killStackNow();
  });

  try {
    if (needsStack) {
      stack = await startPreparedStack();
      process.stdout.write(`stack ready in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    }
    const result = await runMocha(files, grep);
    passed += result.passes;
    failed += result.failures;
  } catch (err) {
    failed += 1;
    process.stderr.write(
      err instanceof LoadError
        ? `${err.message}\n`
        : `test run failed: ${(err as Error).stack ?? String(err)}\n`,
    );
  } finally {
    if (stack?.owned) {
      await stack.stop();
      const problems = await checkNothingLeft(stack);
      if (problems.length === 0) {
        passed += 1;
        process.stdout.write('  ✔ after the suite no stack process or port is left\n');
      } else {
        failed += 1;
        process.stdout.write(`  ✗ left behind after the suite: ${problems.join('; ')}\n`);
      }
      stack = undefined;
    }
  }
  process.stdout.write(`suite time ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  return failed > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n0 passed, 1 failed\n`);
    process.exit(1);
  },
);
