import { startPreparedStack } from '../setup/dev-stack';
import { UsageError } from '../../src/util/usage-error';
import { FUZZ_USAGE, parseFuzzArgs } from './args';
import { formatFuzzReport, writeFuzzReport } from './report';
import { runFuzz } from './run';

/**
 * `npm run fuzz -- --messages N --seed S`: seeded hostile messages through the real bridge on
 * the local stack (started when needed). Prints a table, writes artifacts/fuzz-<run>/report.json,
 * exits 1 when any message is unaccounted for, a partition wedged, the bridge exited or
 * restarted its consumer, or reconcile is not clean. Same seed → same messages.
 */
async function main(argv: string[]): Promise<number> {
  const args = parseFuzzArgs(argv);
  const out = args.json ? process.stderr : process.stdout;
  const stack = await startPreparedStack();
  const report = await runFuzz({
    messages: args.messages,
    seed: args.seed,
    partitions: args.partitions,
    deadlineMs: args.deadlineMs,
    stallMs: args.stallMs,
    skipKinds: args.skip,
    env: { ...process.env, ...stack.state.env },
    artifactsDir: args.reportDir,
    say: (line) => process.stderr.write(`${line}\n`),
  });
  const file = writeFuzzReport(report);
  out.write(`${formatFuzzReport(report)}\nreport: ${file}\n`);
  if (args.json) process.stdout.write(`${JSON.stringify(report)}\n`);
  return report.ok ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n${FUZZ_USAGE}`);
      process.exit(2);
    }
    process.stderr.write(`fuzz run failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
