import { inert } from '../util/inert-text';
import { DISCREPANCY_CLASSES } from './facts';
import type { ReconcileReport } from './reconcile';

/** Longest detail shown in the table; --json carries the full text. */
const MAX_DETAIL = 160;

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** What reconcile read from each source, in one line: clean only means something beside it. */
export function describeRead(r: ReconcileReport['read']): string {
  return (
    `read: ${r.messages} messages (${r.validEvents} valid events, ${r.identities} identities, ${r.poison} poison), ` +
    `${r.dlqMessages} DLQ messages, ${r.ledgerRows} ledger rows, ${r.workflows} workflows, ` +
    `${r.orders} orders, ${r.payouts} payouts, ${r.carts} carts, ${r.reservations} reservations`
  );
}

/**
 * The human report: what was read, one row per discrepancy (class, subject, detail), and the
 * count per class. A clean run says so in one line, with the totals that make it believable.
 */
export function formatReportTable(report: ReconcileReport, scope: string): string {
  const r = report.read;
  const lines = [`onceflow reconcile (${inert(scope)})`, `  ${describeRead(r)}`];
  if (r.eventsKnownSince)
    lines.push(
      `  note: retention trimmed the topic; workflows started before ${r.eventsKnownSince} were not checked against events`,
    );
  if (report.clean) {
    lines.push('  clean: no discrepancies', '');
    return lines.join('\n');
  }
  // Subjects and details quote producers (order IDs, keys, error texts): escaped before they
  // are measured, so a newline or an escape sequence can neither break a row nor the screen.
  const rows = report.discrepancies.map((d) => [
    d.class,
    inert(d.subject),
    clip(inert(d.detail), MAX_DETAIL),
  ]);
  const header = ['CLASS', 'SUBJECT', 'DETAIL'];
  const widths = [0, 1].map((i) =>
    Math.max(header[i]!.length, ...rows.map((row) => row[i]!.length)),
  );
  const render = (row: string[]) =>
    `  ${pad(row[0]!, widths[0]!)}  ${pad(row[1]!, widths[1]!)}  ${row[2]}`.trimEnd();
  lines.push('', render(header), ...rows.map(render), '', '  by class:');
  for (const c of DISCREPANCY_CLASSES)
    if (report.counts[c] > 0) lines.push(`    ${pad(c, 26)} ${report.counts[c]}`);
  lines.push(`  ${report.discrepancies.length} discrepancies`, '');
  return lines.join('\n');
}

/** The machine report: the whole ReconcileReport plus the scope, as one JSON document. */
export function formatReportJson(report: ReconcileReport, scope: Record<string, unknown>): string {
  return `${JSON.stringify({ ...scope, ...report }, null, 2)}\n`;
}
