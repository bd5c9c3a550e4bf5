// Text that quotes a producer (order IDs, DLQ keys, error texts, reasons) made safe to show.
// No imports: workflow code (the Web UI's details) uses it, and it must stay pure.

// C0 and C1 controls, DEL, and the bidirectional overrides that reorder what a terminal shows.
// eslint-disable-next-line no-control-regex
const UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * Text safe to print on an operator's terminal: control characters (ANSI escape sequences,
 * carriage returns, bidi overrides) shown as visible escapes (`\x1b`, `\n`, `\u202e`), so
 * DLQ keys, order IDs and error texts from producers cannot rewrite the screen.
 */
export function inert(text: string): string {
  return text.replace(UNSAFE_CHARS, (ch) => {
    const code = ch.charCodeAt(0);
    return (
      NAMED[ch] ??
      (code <= 0xff
        ? `\\x${code.toString(16).padStart(2, '0')}`
        : `\\u${code.toString(16).padStart(4, '0')}`)
    );
  });
}
