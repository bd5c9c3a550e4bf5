/**
 * Shared plumbing of the ops CLI: exit codes, the error classes that map to them, `--json`
 * versus table output and a progress line for long operations.
 */

/** Exit codes (sysexits-style where one fits): scripts branch on them. */
export const EXIT = {
  ok: 0,
  /** The operation failed or its target does not exist. */
  failure: 1,
  /** Bad arguments. */
  usage: 2,
  /** A bad setting (same code as every other onceflow entry point). */
  config: 78,
} as const;

import { inert } from '../util/inert-text';

export { UsageError, parsePositiveInt, positional } from '../util/usage-error';
/** Re-exported for the CLI's modules; the rule lives in src/util/inert-text.ts. */
export { inert } from '../util/inert-text';
export { parseDuration } from '../util/duration';
export { createProgress } from '../util/progress';

/** The order, workflow or message asked for does not exist; exit 1. */
export class NotFoundError extends Error {
  override readonly name = 'NotFoundError';
}

/** The target exists but is not in a state the command can act on (e.g. not parked); exit 1. */
export class InvalidStateError extends Error {
  override readonly name = 'InvalidStateError';
}

/** What every command returns: the JSON document and the lines a human reads. */
export interface CommandResult {
  json: unknown;
  human: string;
  /** Default: EXIT.ok. */
  exitCode?: number;
}

/** A plain text table: columns padded to the widest cell; `-` for empty cells. */
export function formatTable(headers: string[], rows: Array<Array<string | number | undefined>>) {
  const cells = rows.map((r) =>
    r.map((c) => (c === undefined || c === '' ? '-' : inert(String(c)))),
  );
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(headers), ...cells.map(line)].join('\n');
}

/** `key: value` lines for one record, keys aligned. */
export function formatFields(fields: Array<[string, string | number | undefined]>): string {
  const width = Math.max(...fields.map(([k]) => k.length));
  return fields
    .map(([k, v]) => `${`${k}:`.padEnd(width + 1)} ${v === undefined ? '-' : inert(String(v))}`)
    .join('\n');
}
