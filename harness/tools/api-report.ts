/**
 * The public API's check (`npm run api:check`, which `npm run typecheck` runs) and its update
 * (`npm run api:update`): API Extractor reads the declarations of both entry points,
 * `onceflow` and `onceflow/workflow`, and writes a report of everything each exports, types
 * included, and of every type those reach. The reports committed in api/ are the contract: an
 * exported API that differs from them fails the check, the difference shown.
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { CompilerState, Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const ROOT = resolve(__dirname, '..', '..');
/** One config per entry point (the second extends the first). */
const ENTRY_POINTS = [
  { name: 'onceflow', config: 'api/api-extractor.json' },
  { name: 'onceflow/workflow', config: 'api/api-extractor.workflow.json' },
];

/** The entry points' declarations, from nothing, so one of a deleted module cannot linger. */
function emitDeclarations(): void {
  rmSync(resolve(ROOT, 'dist/api'), { recursive: true, force: true });
  const tsc = require.resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', resolve(ROOT, 'api/tsconfig.json')], {
    stdio: 'inherit',
  });
  if (r.status !== 0) throw new Error(`tsc -p api/tsconfig.json exited ${r.status}`);
}

/** Compares (or, with `update`, rewrites) each report; returns how many differ or failed. */
function checkReports(update: boolean): number {
  emitDeclarations();
  const configs = ENTRY_POINTS.map((e) =>
    ExtractorConfig.loadFileAndPrepare(resolve(ROOT, e.config)),
  );
  const compilerState = CompilerState.create(configs[0]!, {
    additionalEntryPoints: configs.map((c) => c.mainEntryPointFilePath),
  });
  let failed = 0;
  for (const [i, config] of configs.entries()) {
    const result = Extractor.invoke(config, {
      localBuild: update,
      compilerState,
      // A passing check prints nothing; a difference is shown below as a diff.
      messageCallback: (m) => {
        if (m.logLevel === 'info' || m.messageId === 'console-api-report-not-copied')
          m.handled = true;
      },
    });
    const name = config.reportConfigs[0]!.fileName;
    const committed = resolve(config.reportFolder, name);
    if (result.apiReportChanged && !update) {
      const now = relative(ROOT, resolve(config.reportTempFolder, name));
      spawnSync('git', ['--no-pager', 'diff', '--no-index', '--', relative(ROOT, committed), now], {
        cwd: ROOT,
        stdio: 'inherit',
      });
      console.error(
        `The public API of '${ENTRY_POINTS[i]!.name}' differs from ${relative(ROOT, committed)} (- committed, + now).\n` +
          'If the change is meant: `npm run api:update`, commit the report, and add it to ' +
          "CHANGELOG.md's Unreleased section, with an upgrade note when a team must act on it.",
      );
      failed++;
    } else if (!result.succeeded) failed++;
    else if (result.apiReportChanged) console.log(`updated ${relative(ROOT, committed)}`);
  }
  return failed;
}

process.exitCode = checkReports(process.argv.includes('--update')) === 0 ? 0 : 1;
