import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatTable } from '../../src/ops/output';
import type { FuzzReport } from './run';

/** The run as text: outcomes per message kind, the checks, DLQ reasons and any wedge. */
export function formatFuzzReport(r: FuzzReport): string {
  const j = r.judgement;
  const lines: string[] = [];
  lines.push(
    `fuzz run ${r.run}: ${r.messages} messages, seed ${r.seed}, topic ${r.topic}`,
    `  produced in ${(r.timings.produceMs / 1000).toFixed(1)} s; bridge drain ${r.drained} after ${(r.timings.drainMs / 1000).toFixed(1)} s; total ${(r.timings.totalMs / 1000).toFixed(1)} s`,
    '',
    formatTable(
      ['kind', 'messages', 'started', 'deduplicated', 'dead-lettered', 'unhandled', 'DLQ reasons'],
      [
        ...j.byKind.map((k) => [
          k.kind,
          k.messages,
          k.started,
          k.deduplicated,
          k.deadLettered,
          k.unhandled,
          Object.entries(k.reasons)
            .sort((a, b) => b[1] - a[1])
            .map(([reason, n]) => `${reason} ${n}`)
            .join(', '),
        ]),
        [
          'total',
          r.messages,
          ...(['started', 'deduplicated', 'deadLettered', 'unhandled'] as const).map((c) =>
            j.byKind.reduce((s, k) => s + k[c], 0),
          ),
          '',
        ],
      ],
    ),
    '',
    `bridge metrics: ${Object.entries(r.metrics)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
    `DLQ by reason: ${
      Object.entries(j.dlqByReason)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || 'none'
    }`,
    `committed/end per partition: ${r.offsets.map((o) => `p${o.partition} ${o.committed}/${o.end}`).join(', ')}`,
    '',
    'check                          violations',
  );
  for (const [name, n] of Object.entries(j.checks)) {
    lines.push(`  ${n === 0 ? '✓' : '✗'} ${name.padEnd(28)} ${n}`);
    for (const e of j.examples[name] ?? []) lines.push(`      ${e}`);
  }
  if (r.shutdownHung)
    lines.push('  ✗ shutdown: a component ignored SIGTERM for 20 s and was killed');
  for (const w of j.wedges) {
    lines.push(
      `  wedged: partition ${w.partition} committed ${w.committed} of ${w.end}` +
        (w.at
          ? `; ${w.at.why ? 'blamed' : 'first'} message without an outcome: offset ${w.at.offset}, #${w.at.seq}, kind ${w.at.kind}, ${w.at.codec} batch: ${w.at.summary}${w.at.why ? `; ${w.at.why}` : ''}`
          : ''),
    );
    if (w.lastError)
      lines.push(
        `          bridge log (${w.logWarnings} warnings): ${w.lastLogMessage}: ${w.lastError}`,
      );
  }
  if (r.reconcile.error) lines.push(`  reconcile failed: ${r.reconcile.error}`);
  for (const d of r.reconcile.sample) lines.push(`  reconcile: ${d}`);
  for (const e of r.unexpectedExits) lines.push(`  unexpected exit: ${e}`);
  lines.push(
    '',
    `verdict: ${r.ok ? 'PASS: every message accounted for, no wedge, no restart, reconcile clean' : 'FAIL'}`,
    `logs: ${r.logs}`,
  );
  return lines.join('\n');
}

/** Writes the report as JSON (artifacts/fuzz-<run>/report.json); returns the file. */
export function writeFuzzReport(r: FuzzReport): string {
  mkdirSync(r.artifactsDir, { recursive: true });
  const file = join(r.artifactsDir, 'report.json');
  writeFileSync(file, `${JSON.stringify(r, null, 2)}\n`);
  return file;
}
