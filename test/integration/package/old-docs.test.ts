import { strict as assert } from 'node:assert';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { buildEventMessage } from '../../../src/events/event-message';
import { waitFor } from '../../../src/util/wait';
import { uniqueName } from '../../support/services';
import { LOANS_MAIN, LOANS_WORKFLOWS_B861635, LOANS_WORKFLOWS_D482618 } from './loans-programs';
import {
  compileProject,
  createPackedProject,
  projectCompilerOptions,
  openTeamWorld,
  startProgram,
  type RunningProgram,
  type TeamWorld,
} from './packed-project';

/** What an editor shows on `waitFor` in `file`: its suggestions and the @deprecated text. */
function editorOn(dir: string, file: string): { suggestions: string[]; deprecated: string } {
  const path = join(dir, file);
  const { options } = ts.convertCompilerOptionsFromJson(projectCompilerOptions(), dir);
  const files = [join(dir, 'main.ts'), path];
  const service = ts.createLanguageService({
    getScriptFileNames: () => files,
    getScriptVersion: () => '1',
    getScriptSnapshot: (f) =>
      ts.sys.fileExists(f) ? ts.ScriptSnapshot.fromString(ts.sys.readFile(f)!) : undefined,
    getCurrentDirectory: () => dir,
    getCompilationSettings: () => options,
    getDefaultLibFileName: ts.getDefaultLibFilePath,
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  });
  const at = readFileSync(path, 'utf8').indexOf("waitFor('approval'");
  const info = service.getQuickInfoAtPosition(path, at);
  return {
    suggestions: service
      .getSuggestionDiagnostics(path)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, ' ')),
    deprecated: ts.displayPartsToString(info?.tags?.find((t) => t.name === 'deprecated')?.text),
  };
}

// A loans domain written to the docs of b861635 (the previous release, 0.1.0), installed
// from the packed package into an empty project: its approval gate (`if (!approval)`) means
// what it meant then. The same gate written to d482618's docs (`approval.timedOut`), which
// silently approved every loan when run on b861635's meaning, does not compile, and says where.
describe('code written to the previous release docs, on the packed package (npm pack, real stack)', function () {
  this.timeout(900_000);
  const topic = uniqueName('loans');
  const schema = uniqueName('loans');
  const approvedId = uniqueName('loan');
  const unansweredId = uniqueName('loan');
  let dir: string;
  let program: RunningProgram | undefined;
  let world: TeamWorld;

  before(async () => {
    world = await openTeamWorld({ schema, topic });
    dir = createPackedProject('loans');
    writeFileSync(join(dir, 'main.ts'), LOANS_MAIN);
    writeFileSync(join(dir, 'workflows.ts'), LOANS_WORKFLOWS_B861635);
    writeFileSync(join(dir, 'workflows-d482618.ts'), LOANS_WORKFLOWS_D482618);
    writeFileSync(
      join(dir, 'workflows-receive.ts'),
      LOANS_WORKFLOWS_D482618.replaceAll('waitFor', 'receive'),
    );
  });

  after(async () => {
    await program?.stop();
    await world?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("d482618's `approval.timedOut` fails to compile on waitFor's answer, which is deprecated for receive", () => {
    const broken = compileProject(
      dir,
      ['main.ts', 'workflows-d482618.ts'],
      'tsconfig.d482618.json',
    );
    assert.notEqual(broken.status, 0, 'tsc accepted approval.timedOut');
    const gateLine = LOANS_WORKFLOWS_D482618.split('\n').findIndex((l) => l.includes('.timedOut'));
    assert.match(
      broken.output,
      new RegExp(
        `workflows-d482618\\.ts\\(${gateLine + 1},\\d+\\): error TS2339: Property 'timedOut' does not exist on type '\\{ by: string; \\}'`,
      ),
    );
    // In an editor: waitFor struck through, its @deprecated text naming what to write instead.
    const editor = editorOn(dir, 'workflows-d482618.ts');
    assert.ok(
      editor.suggestions.includes("'waitFor' is deprecated."),
      editor.suggestions.join('\n'),
    );
    assert.match(editor.deprecated, /Use `receive`/);
    // Doing what it says is the whole change.
    const moved = compileProject(dir, ['main.ts', 'workflows-receive.ts'], 'tsconfig.receive.json');
    assert.equal(moved.status, 0, moved.output);
  });

  it("b861635's gate compiles and means what it meant: an unanswered loan is declined and released, an approved one opens", async () => {
    const compiled = compileProject(dir, ['main.ts', 'workflows.ts']);
    assert.equal(compiled.status, 0, compiled.output);
    program = startProgram(dir, {
      KAFKA_TOPICS: topic,
      KAFKA_GROUP_ID: uniqueName('bridge'),
      TEMPORAL_TASK_QUEUE: uniqueName('tq'),
      DATABASE_SCHEMA: schema,
      LOG_LEVEL: 'warn',
    });
    const running = program;
    const producer = world.kafka.producer();
    await producer.connect();
    try {
      await producer.send({
        topic,
        messages: [approvedId, unansweredId].map((loanId) =>
          buildEventMessage({
            eventType: 'LoanRequested',
            aggregateId: loanId,
            aggregateVersion: 1,
            data: { loanId, amountMinor: 5_000_000 },
          }),
        ),
      });
    } finally {
      await producer.disconnect();
    }

    /** The loan's run once `ready` says so; the program's output when it exited or never did. */
    const runOf = (loanId: string, ready: (status: string) => boolean, what: string) =>
      waitFor(
        async () => {
          if (running.process.exitCode !== null)
            throw new Error(`the program exited:\n${running.output()}`);
          for await (const w of world.client.workflow.list({ query: `EntityId = '${loanId}'` }))
            if (ready(w.status.name)) return w.workflowId;
          return undefined;
        },
        { timeoutMs: 180_000, intervalMs: 500, what },
      ).catch((err: Error) => assert.fail(`${err.message}\nprogram output:\n${running.output()}`));

    const approved = await runOf(approvedId, () => true, `the run of loan ${approvedId}`);
    await world.client.workflow.getHandle(approved).signal('approveLoan', { by: 'ada' });
    const results = await Promise.all(
      [approvedId, unansweredId].map(async (loanId) => {
        const id = await runOf(loanId, (s) => s !== 'RUNNING', `loan ${loanId} closed`);
        return world.client.workflow.getHandle(id).result() as Promise<Record<string, unknown>>;
      }),
    );
    assert.deepEqual(
      results.map((r) => [r.outcome, r.reason]),
      [
        ['completed', undefined],
        ['declined', 'no approval within 10 seconds'],
      ],
    );
    // Each step's effect once; the unanswered loan's reservation released as it unwound.
    const { rows } = await world.pool.query<{ key: string; what: string }>(
      'SELECT key, what FROM effects',
    );
    assert.deepEqual(
      rows.map((r) => `${r.key} ${r.what}`).sort(),
      [
        `loan:${approvedId}:mail mail ACC-${approvedId}`,
        `loan:${approvedId}:open open`,
        `loan:${approvedId}:reserve reserve 5000000`,
        `loan:${unansweredId}:release release`,
        `loan:${unansweredId}:reserve reserve 5000000`,
      ].sort(),
    );
  });
});
