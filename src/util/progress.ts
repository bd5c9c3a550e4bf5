/** Where progress is drawn: a stream that may be a terminal. */
export interface ProgressOutput {
  isTTY?: boolean;
  write(text: string): unknown;
}

/** Options of createProgress. */
export interface ProgressOptions {
  /** Where to draw. Default: process.stderr, so stdout stays clean for `--json`. */
  out?: ProgressOutput;
  /** Off a terminal, a line each time this many more are done. Default: a tenth of `total`. */
  every?: number;
  /** Off a terminal, print nothing (a command that prints its own summary). Default: false. */
  ttyOnly?: boolean;
}

/**
 * Progress of a long operation: a bar redrawn in place on a terminal; on a pipe (CI, logs) a
 * line every `every` items and at the end, so the output stays readable in both.
 */
export function createProgress(label: string, total: number, options: ProgressOptions = {}) {
  const out = options.out ?? process.stderr;
  const every = options.every ?? Math.max(1, Math.ceil(total / 10));
  let last = -1;
  let lastDetail = '';
  let ended = false;
  return {
    /** `done` of `total` are finished; `detail` is shown after the count. */
    update(done: number, detail = ''): void {
      if (total === 0 || ended) return;
      const suffix = detail ? ` ${detail}` : '';
      if (out.isTTY) {
        if (done === last && detail === lastDetail) return;
        const width = 30;
        const filled = Math.round((Math.min(done, total) / total) * width);
        out.write(
          `\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}${suffix}   `,
        );
        if (done >= total) {
          out.write('\n');
          ended = true;
        }
      } else if (!options.ttyOnly && (done >= total || done - Math.max(last, 0) >= every)) {
        out.write(`${label}: ${done}/${total}${suffix}\n`);
        ended = done >= total;
      } else return;
      last = done;
      lastDetail = detail;
    },
    /** Ends the bar's line on a terminal when the operation stops short of `total`. */
    finish(): void {
      if (out.isTTY && !ended && last >= 0) out.write('\n');
      ended = true;
    },
  };
}
