import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { stackPaths, type StackPaths } from '../../harness/stack/paths';
import { isAlive } from '../../harness/stack/processes';
import { readStackState, stopStack, type StackState } from '../../harness/stack/stack';
import { cleanShell, runLine, type ShellRun } from '../support/new-shell';
import {
  FIRST_SCREEN_MAX_LINES,
  firstScreenCommands,
  firstScreenOf,
  squeezed,
  type ReadmeCommand,
} from '../support/readme-commands';

const ROOT = resolve(__dirname, '..', '..');
const README = readFileSync(resolve(ROOT, 'README.md'), 'utf8');

/**
 * A fresh clone as a newcomer has it: the working tree's files (tracked and new, with their
 * times, so scripts/ensure-deps.sh finds node_modules current), no `.onceflow/` state, no stack.
 * Only what a first run would download is shared with the runner's stack (node_modules, the
 * Temporal CLI, Kafka's jars), as a second run of the demo finds them cached: this test checks
 * the commands, not the registries.
 */
function freshClone(): { dir: string; paths: StackPaths } {
  // The clone shares node_modules: were it older than package-lock.json, or installed by
  // another Node (scripts/ensure-deps.sh's marker), the demo command's `npm ci` would
  // reinstall it under this running suite.
  const lock = statSync(resolve(ROOT, 'package-lock.json')).mtimeMs;
  const installed = resolve(ROOT, 'node_modules', '.package-lock.json');
  assert.ok(
    existsSync(installed) && statSync(installed).mtimeMs >= lock,
    'node_modules is older than package-lock.json: run npm ci (or bash scripts/test.sh) first',
  );
  const marker = resolve(ROOT, 'node_modules', '.onceflow-node');
  const installedBy = existsSync(marker) ? readFileSync(marker, 'utf8').trim() : 'an unknown Node';
  assert.equal(
    installedBy,
    process.version,
    `node_modules was installed by ${installedBy}, not ${process.version}: run bash scripts/test.sh (it reinstalls them)`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'onceflow-readme-'));
  try {
    chmodSync(dir, 0o755); // PostgreSQL runs as its own user and must reach its data folder
    const listed = ['ls-files', '-z', '--cached', '--others', '--exclude-standard'];
    const files = execFileSync('git', listed, { cwd: ROOT })
      .toString()
      .split('\0')
      // node_modules and .onceflow are shared below even where they are links git does not ignore.
      .filter(
        (f) =>
          f !== '' && existsSync(resolve(ROOT, f)) && !/^(node_modules|\.onceflow)(\/|$)/.test(f),
      );
    for (const file of files) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      cpSync(resolve(ROOT, file), join(dir, file), { preserveTimestamps: true });
    }
    symlinkSync(resolve(ROOT, 'node_modules'), join(dir, 'node_modules'));
    const runner = stackPaths();
    const paths = stackPaths(join(dir, '.onceflow'));
    for (const [from, to] of [
      [runner.bin, paths.bin],
      [runner.cache, paths.cache],
      [runner.kafkaLibs, paths.kafkaLibs],
      [runner.node, paths.node],
    ] as const) {
      if (!existsSync(from)) continue; // the runner's stack was not installed here: download
      mkdirSync(dirname(to), { recursive: true });
      symlinkSync(from, to);
    }
    return { dir, paths };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true }); // a half-made clone is not left behind
    throw err;
  }
}

/** What README says a command prints, each quoted text found in its output (spaces squeezed). */
function assertSays(run: ShellRun, readme: ReadmeCommand) {
  const output = squeezed(`${run.stdout}\n${run.stderr}`);
  for (const text of readme.says)
    assert.ok(
      output.includes(text),
      `${readme.command}: README says it prints "${text}":\n${output}`,
    );
}

/**
 * README's first screen, run as written by a newcomer (issue 25): every command of its code
 * blocks, in order, each in a new login shell (`bash -lc`) with no ONCEFLOW_*, TEMPORAL_*,
 * KAFKA_* or DATABASE_* variable, in a fresh clone whose stack the demo starts itself; each
 * must exit 0 and print what README says it prints. Then the stop command README names.
 *
 * The test command (`bash scripts/test.sh`, the whole suite, this test among it) cannot run
 * inside the suite. What this test asserts instead is that it is exactly the command CI
 * runs, so CI's run of the suite is the run of README's test command, and that the summary
 * README promises is the runner's last line.
 */
describe("README's first screen, run as written in a new shell on a fresh stack (issue 25)", function () {
  this.timeout(40 * 60_000);
  const commands = firstScreenCommands(README);
  const shell = cleanShell();
  let clone: { dir: string; paths: StackPaths };
  let stack: StackState | undefined;

  before(() => {
    clone = freshClone();
  });
  after(async () => {
    if (!clone) return;
    await stopStack(clone.paths); // a failed command may have left the demo's stack up
    rmSync(clone.dir, { recursive: true, force: true });
  });

  const run = (command: string, timeoutMs: number) =>
    runLine(command, shell, timeoutMs, { cwd: clone.dir, login: true });

  /** What each README command needs beyond exit 0 and README's quoted output. */
  const checks: Record<string, (readme: ReadmeCommand) => Promise<void>> = {
    'bash scripts/demo.sh': async (readme) => {
      const demo = await run(readme.command, 25 * 60_000);
      assert.equal(demo.code, 0, `${demo.stdout}\n${demo.stderr}`);
      assertSays(demo, readme);
      const output = squeezed(demo.stdout);
      assert.match(output, /orders 300, cancellations \d+/); // README: "publishes 300 orders"
      assert.match(output, /DLQ by reason [a-z-]+ \d+/);
      stack = readStackState(clone.paths);
      assert.ok(stack, 'the demo left its stack running in the clone (README: "keeps running")');
      for (const [name, pid] of Object.entries(stack.pids))
        assert.ok(pid !== undefined && isAlive(pid), `its ${name} runs`);
      const last = demo.stdout.trim().split('\n').at(-1);
      assert.equal(last, `Temporal Web UI: ${stack.env.TEMPORAL_UI_URL}`);
    },
    'bash scripts/test.sh': async (readme) => {
      const ci = readFileSync(resolve(ROOT, '.ci/run'), 'utf8');
      assert.match(ci, new RegExp(`^suite "npm test" ${readme.command}$`, 'm'), 'CI runs it');
      const script = readFileSync(resolve(ROOT, 'scripts/test.sh'), 'utf8');
      assert.match(script, /^exec npm test\b/m);
      const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8'));
      assert.equal(pkg.scripts.test, 'tsx test/run.ts');
      assert.deepEqual(readme.says, ['N passed, N failed']);
      const runner = readFileSync(resolve(ROOT, 'test/run.ts'), 'utf8');
      assert.ok(runner.includes('`${passed} passed, ${failed} failed\\n`'), 'its last line');
    },
    'npx onceflow orders list --step needs_attention': async (readme) => {
      assert.ok(stack, 'the demo ran first');
      const list = await run(readme.command, 3 * 60_000);
      assert.equal(list.code, 0, `${list.stdout}\n${list.stderr}`);
      assertSays(list, readme);
      // The query README tells the user to paste into the Web UI is the one the command runs.
      const pasted = /`(\w+) = "needs_attention"`/.exec(firstScreenOf(README));
      assert.ok(pasted, 'README gives the Web UI query for parked orders');
      assert.match(
        list.stdout,
        new RegExp(`^\\d+ order\\(s\\) · query: .*\\b${pasted[1]} = 'needs_attention'`, 'm'),
        `README's Web UI query (${pasted[0]}) uses the search attribute the CLI queries:\n${list.stdout}`,
      );
      // It found the clone's stack by itself, not the runner's.
      assert.match(list.stdout, new RegExp(`^Web UI: ${stack.env.TEMPORAL_UI_URL}/`, 'm'));
    },
  };

  it('the first screen fits a screen and every command on it has a check here', () => {
    const lines = firstScreenOf(README).trimEnd().split('\n').length;
    assert.ok(lines <= FIRST_SCREEN_MAX_LINES, `${lines} lines, at most ${FIRST_SCREEN_MAX_LINES}`);
    assert.deepEqual(
      commands.map((c) => c.command),
      Object.keys(checks),
      "README's first-screen commands, in order, are the ones this test runs",
    );
  });

  for (const readme of commands)
    it(readme.command, async () => {
      const check = checks[readme.command];
      if (check) return check(readme);
      // A command this test does not know yet still runs as written, so a broken word shows
      // as its own error; then the test asks for a check of what it does.
      const unknown = await run(readme.command, 5 * 60_000);
      assert.equal(unknown.code, 0, `${readme.command}:\n${unknown.stdout}\n${unknown.stderr}`);
      assertSays(unknown, readme);
      assert.fail(`no check here for README command "${readme.command}": add one`);
    });

  it("npm run stack:stop (named on the first screen) stops the demo's stack", async () => {
    assert.ok(firstScreenOf(README).includes('`npm run stack:stop` stops it'));
    assert.ok(stack, 'the demo ran first');
    const stop = await run('npm run stack:stop', 3 * 60_000);
    assert.equal(stop.code, 0, `${stop.stdout}\n${stop.stderr}`);
    assert.match(stop.stdout, /^stack stopped$/m);
    for (const [name, pid] of Object.entries(stack.pids))
      assert.ok(pid === undefined || !isAlive(pid), `${name} (pid ${pid}) stopped`);
  });
});
