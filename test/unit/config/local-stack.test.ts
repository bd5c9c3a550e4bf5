import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ConfigError,
  DEFAULTS,
  loadConfig,
  redactConfig,
  requireEncryptionKey,
  type LoadConfigOptions,
} from '../../../src/config';
import { readLocalStackFile } from '../../../src/config/local-stack-file';
import { stackPaths } from '../../../harness/stack/paths';
import { writeStackState, type StackState } from '../../../harness/stack/stack-state';
import { ensureDevKeyFile } from '../../../src/config/key-ring';

/** Every process of the stack alive, booted long ago: the stack counts as running. */
const RUNNING: LoadConfigOptions = { localStack: { isAlive: () => true, bootTimeMs: 0 } };

/**
 * The precedence of src/config/local-stack.ts: each variable set in the environment wins;
 * else the running local stack's value; else the default. Each test has its own state folder
 * holding a stack.json as the stack writes it (its own writer), so the format is the shared one.
 */
describe('config: the running local stack as the default (issue 25)', () => {
  let dir: string;
  let keyFile: string;
  let state: StackState;
  /** The environment of a new shell that only says where the state folder is. */
  let shell: NodeJS.ProcessEnv;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'onceflow-local-stack-'));
    keyFile = ensureDevKeyFile(join(dir, 'encryption-keys'));
    state = {
      // Fields the config module does not read (topology, Kafka layout, ports) are tolerated.
      topology: { temporal: 'dev', kafkaBrokers: 1 },
      pids: { temporal: 101, kafka: 102, postgres: 103, codec: 104 },
      env: {
        TEMPORAL_ADDRESS: '127.0.0.1:47233',
        TEMPORAL_UI_URL: 'http://127.0.0.1:48233',
        KAFKA_BROKERS: '127.0.0.1:49092',
        DATABASE_URL: 'postgres://onceflow@127.0.0.1:45432/onceflow',
        ONCEFLOW_ENCRYPTION_KEY_FILE: keyFile,
        PROVIDERS_ADMIN_TOKEN: 'stack-token-4f1c',
      },
      codecUrl: 'http://127.0.0.1:48089',
      ports: [47233, 48233, 49092, 45432, 48089],
      versions: { temporalCli: '1.9.1', kafka: '3.9.2' },
      startedAt: new Date().toISOString(),
    };
    writeStackState(stackPaths(dir), state);
    shell = { ONCEFLOW_STATE_DIR: dir };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('takes every setting the environment leaves unset from the running stack', () => {
    const config = loadConfig(shell, RUNNING);
    assert.equal(config.temporal.address, '127.0.0.1:47233');
    assert.equal(config.temporal.uiUrl, 'http://127.0.0.1:48233');
    assert.deepEqual(config.kafka.brokers, ['127.0.0.1:49092']);
    assert.equal(config.database.url, 'postgres://onceflow@127.0.0.1:45432/onceflow');
    assert.equal(config.providers.adminToken, 'stack-token-4f1c');
    assert.ok(config.encryption.ring, 'the dev key ring is loaded from the stack');
    assert.doesNotThrow(() => requireEncryptionKey(config));
    assert.equal(config.origin.localStack.status, 'used');
    assert.ok(config.origin.localStack.detail.startsWith(join(dir, 'stack.json')));
    assert.deepEqual(config.origin.sources['local stack'].sort(), [
      'DATABASE_URL',
      'KAFKA_BROKERS',
      'ONCEFLOW_ENCRYPTION_KEY_FILE',
      'PROVIDERS_ADMIN_TOKEN',
      'TEMPORAL_ADDRESS',
      'TEMPORAL_UI_URL',
    ]);
    // Everything else keeps its default.
    assert.equal(config.temporal.taskQueue, DEFAULTS.TEMPORAL_TASK_QUEUE);
    assert.ok(config.origin.sources.default.includes('TEMPORAL_TASK_QUEUE'));
  });

  it('lets each variable set in the environment win on its own', () => {
    const config = loadConfig(
      {
        ...shell,
        TEMPORAL_UI_URL: 'http://ui.example:8080',
        PROVIDERS_ADMIN_TOKEN: 'mine',
        TEMPORAL_TASK_QUEUE: 'my-queue',
      },
      RUNNING,
    );
    assert.equal(config.temporal.uiUrl, 'http://ui.example:8080');
    assert.equal(config.providers.adminToken, 'mine');
    assert.equal(config.temporal.taskQueue, 'my-queue');
    assert.equal(config.temporal.address, '127.0.0.1:47233', 'the rest still from the stack');
    assert.deepEqual(config.origin.sources.environment.sort(), [
      'ONCEFLOW_STATE_DIR',
      'PROVIDERS_ADMIN_TOKEN',
      'TEMPORAL_TASK_QUEUE',
      'TEMPORAL_UI_URL',
    ]);
    assert.ok(!config.origin.sources['local stack'].includes('TEMPORAL_UI_URL'));
  });

  it('an explicit key wins over the dev key file (KEYS is read before KEY_FILE)', () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    const config = loadConfig({ ...shell, ONCEFLOW_ENCRYPTION_KEYS: `mine:${key}` }, RUNNING);
    assert.deepEqual(config.encryption.keyIds, ['mine']);
    const off = loadConfig({ ...shell, ONCEFLOW_ENCRYPTION: 'off' }, RUNNING);
    assert.equal(off.encryption.ring, undefined, 'ONCEFLOW_ENCRYPTION=off still means off');
  });

  for (const [what, env, reason] of [
    ['ONCEFLOW_LOCAL_STACK=off', { ONCEFLOW_LOCAL_STACK: 'off' }, 'ONCEFLOW_LOCAL_STACK=off'],
    ['NODE_ENV=production', { NODE_ENV: 'production' }, 'NODE_ENV=production'],
    ['a Temporal address', { TEMPORAL_ADDRESS: 'temporal:7233' }, 'TEMPORAL_ADDRESS is set'],
    ['a Kafka address', { KAFKA_BROKERS: 'kafka:9092' }, 'KAFKA_BROKERS is set'],
    ['a database address', { DATABASE_URL: 'postgres://app@db/onceflow' }, 'DATABASE_URL is set'],
  ] as const) {
    it(`never consults the stack with ${what}: nothing of it is used`, () => {
      const config = loadConfig({ ...shell, ONCEFLOW_ENCRYPTION: 'off', ...env }, RUNNING);
      assert.equal(config.origin.localStack.status, 'off');
      assert.equal(config.origin.localStack.detail, reason);
      assert.deepEqual(config.origin.sources['local stack'], []);
      assert.equal(config.providers.adminToken, undefined, 'not the stack token');
      if (!('TEMPORAL_ADDRESS' in env))
        assert.equal(config.temporal.address, DEFAULTS.TEMPORAL_ADDRESS);
      if (!('DATABASE_URL' in env)) assert.equal(config.database.url, DEFAULTS.DATABASE_URL);
    });
  }

  it('a key missing beside a named service says why the dev key is not used', () => {
    const config = loadConfig({ ...shell, KAFKA_BROKERS: 'kafka:9092' }, RUNNING);
    assert.throws(
      () => requireEncryptionKey(config),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.problems[0]!.setting === 'ONCEFLOW_ENCRYPTION_KEYS' &&
        err.message.split('\n').at(-1) ===
          '(The local stack and its dev key are not used: KAFKA_BROKERS is set.)',
    );
  });

  for (const [what, probe, reason] of [
    [
      'a process of it is gone',
      { isAlive: (pid: number) => pid !== 102, bootTimeMs: 0 },
      /is not running: kafka \(pid 102\) is gone/,
    ],
    [
      'it was started before the machine booted (its pids may be others now)',
      { isAlive: () => true, bootTimeMs: Date.now() + 3_600_000 },
      /is not running: it was started at .*, before this machine last booted/,
    ],
  ] as const) {
    it(`does not use a stack when ${what}`, () => {
      const config = loadConfig({ ...shell, ONCEFLOW_ENCRYPTION: 'off' }, { localStack: probe });
      assert.equal(config.origin.localStack.status, 'none');
      assert.match(config.origin.localStack.detail, reason);
      assert.equal(config.temporal.address, DEFAULTS.TEMPORAL_ADDRESS);
      assert.deepEqual(config.origin.sources['local stack'], []);
    });
  }

  it('with neither settings nor a running stack, says what to run, as lines', () => {
    const empty = mkdtempSync(join(tmpdir(), 'onceflow-no-stack-'));
    try {
      assert.throws(
        () => loadConfig({ ONCEFLOW_STATE_DIR: empty, LOG_LEVEL: 'warn' }, RUNNING),
        (err: unknown) => {
          assert.ok(err instanceof ConfigError);
          const lines = err.message.split('\n');
          assert.equal(
            lines[0],
            `No settings and no running local stack (no stack recorded in ${join(empty, 'stack.json')}). Either`,
          );
          assert.match(lines[1]!, /start the local stack: +npm run stack/);
          assert.match(lines[2]!, /TEMPORAL_ADDRESS, KAFKA_BROKERS, DATABASE_URL/);
          return true;
        },
      );
      // A stack that died says so.
      assert.throws(
        () => loadConfig(shell, { localStack: { isAlive: () => false, bootTimeMs: 0 } }),
        /^ConfigError: No settings and no running local stack \(the local stack recorded in .* is not running: temporal \(pid 101\), kafka \(pid 102\), postgres \(pid 103\), codec \(pid 104\) are gone\)/,
      );
      // Any encryption setting is a setting: then the defaults serve (e.g. your own dev server).
      assert.equal(
        loadConfig({ ONCEFLOW_STATE_DIR: empty, ONCEFLOW_ENCRYPTION: 'off' }, RUNNING).temporal
          .address,
        DEFAULTS.TEMPORAL_ADDRESS,
      );
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('a bad value from the stack says it came from the stack', () => {
    writeStackState(stackPaths(dir), { ...state, env: { ...state.env, KAFKA_BROKERS: 'nope' } });
    assert.throws(
      () => loadConfig(shell, RUNNING),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.problems[0]!.setting === 'KAFKA_BROKERS' &&
        err.problems[0]!.message.endsWith(
          `(value from the local stack: ${join(dir, 'stack.json')} (started ${state.startedAt}))`,
        ),
    );
  });

  it('reads a state file that is not a stack state as no stack, and says so', () => {
    writeFileSync(join(dir, 'stack.json'), '{"pids": "nope"}');
    assert.equal(readLocalStackFile(join(dir, 'stack.json')), undefined);
    assert.throws(() => loadConfig(shell, RUNNING), /stack\.json is not a stack's state file/);
  });

  it('without the localStack option (library callers, tests) ignores a running stack', () => {
    const config = loadConfig({ ...shell, ONCEFLOW_ENCRYPTION: 'off' });
    assert.equal(config.temporal.address, DEFAULTS.TEMPORAL_ADDRESS);
    assert.equal(config.origin.localStack.status, 'not-looked-up');
  });

  it('logs where settings came from, never a value the stack supplied', () => {
    const logged = JSON.stringify(redactConfig(loadConfig(shell, RUNNING)));
    assert.ok(!logged.includes('stack-token-4f1c'), 'the admin token stays out');
    assert.match(logged, /"local stack":\["TEMPORAL_ADDRESS",/);
    assert.match(logged, /"status":"used"/);
  });

  it('reads back every field the stack writes (one format, extra fields kept)', () => {
    const read = readLocalStackFile(join(dir, 'stack.json'));
    assert.deepEqual(read, JSON.parse(JSON.stringify(state)));
  });
});
