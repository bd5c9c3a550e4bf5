/**
 * A one-line progress bar on a terminal; on a pipe (CI, logs) a line per 10%, so the output
 * stays readable in both.
 */
export function createProgress(
  label: string,
  total: number,
  out: NodeJS.WriteStream = process.stderr,
) {
  let lastDecile = -1;
  return {
    update(done: number, detail = ''): void {
      const ratio = total === 0 ? 1 : Math.min(1, done / total);
      if (out.isTTY) {
        const width = 30;
        const filled = Math.round(ratio * width);
        out.write(
          `\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${detail}   `,
        );
      } else {
        const decile = Math.floor(ratio * 10);
        if (decile !== lastDecile) {
          lastDecile = decile;
          out.write(`${label} ${Math.round(ratio * 100)}% (${done}/${total}) ${detail}\n`);
        }
      }
    },
    finish(): void {
      if (out.isTTY) out.write('\n');
    },
  };
}
