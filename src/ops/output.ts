/**
 * Shared plumbing of the ops CLI: exit codes, the error classes that map to them, `--json`
 * versus table output and a progress line for long operations.
 */
import { parseDurationMs } from '../util/duration';

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

/** Bad arguments or an unknown command; exit 2 with the usage text. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

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

// C0 and C1 controls, DEL, and the bidirectional overrides that reorder what a terminal shows.
// eslint-disable-next-line no-control-regex
const UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text safe to print on an operator's terminal: control characters (ANSI escape sequences,
 * carriage returns, bidi overrides) shown as visible escapes (`\x1b`, `\n`, `\u202e`), so
 * DLQ keys, order IDs and error texts from producers cannot rewrite the screen.
 */
export function inert(text: string): string {
  return text.replace(UNSAFE_CHARS, (ch) => {
    const named: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
    const code = ch.charCodeAt(0);
    return (
      named[ch] ??
      (code <= 0xff
        ? `\\x${code.toString(16).padStart(2, '0')}`
        : `\\u${code.toString(16).padStart(4, '0')}`)
    );
  });
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

/** Parses `90s`, `10m`, `2h`, `3d` into milliseconds; a UsageError for anything else. */
export function parseDuration(text: string, option: string): number {
  const ms = parseDurationMs(text);
  if (ms === undefined)
    throw new UsageError(`${option} must look like 30s, 10m, 2h or 3d, got ${text}`);
  return ms;
}

/** Parses a positive integer option; a UsageError for anything else. */
export function parsePositiveInt(text: string | undefined, option: string, fallback: number) {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new UsageError(`${option} must be a positive integer, got ${text}`);
  return n;
}

/**
 * Reports progress of a long operation on stderr (stdout stays clean for `--json`): a bar
 * redrawn in place on a terminal, a line every `every` items otherwise (CI logs) unless
 * `ttyOnly` (a command that prints its own summary line anyway).
 */
export function createProgress(label: string, total: number, every = 100, ttyOnly = false) {
  const tty = process.stderr.isTTY;
  let last = -1;
  return {
    update(done: number): void {
      if (total === 0) return;
      if (tty) {
        if (done === last) return;
        last = done;
        const width = 30;
        const filled = Math.round((done / total) * width);
        process.stderr.write(
          `\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`,
        );
        if (done === total) process.stderr.write('\n');
      } else if (!ttyOnly && (done === total || done - last >= every)) {
        process.stderr.write(`${label}: ${done}/${total}\n`);
        last = done;
      }
    },
  };
}
