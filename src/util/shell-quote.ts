// Quoting for text an operator copies into a shell or reads as Markdown. No imports: workflow
// code (the Web UI's current details) uses it, and it must stay pure and deterministic.

/** Characters a POSIX shell never treats specially in a word. */
const SAFE_WORD = /^[A-Za-z0-9._:@%+=,/-]+$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * One shell word that means exactly `arg` when pasted into bash, zsh or sh: bare when it is
 * plainly safe, else single-quoted (`'` written as `'\''`), and ANSI-C quoted (`$'…'` with
 * `\xNN` escapes) when it holds control characters, so no newline or escape sequence ever
 * reaches the terminal or ends the command early.
 */
export function shellQuote(arg: string): string {
  if (arg !== '' && SAFE_WORD.test(arg)) return arg;
  if (!CONTROL.test(arg)) return `'${arg.replace(/'/g, `'\\''`)}'`;
  let out = '';
  for (const ch of arg) {
    const code = ch.codePointAt(0)!;
    if (ch === "'" || ch === '\\') out += `\\${ch}`;
    else if (code < 0x20 || (code >= 0x7f && code <= 0x9f))
      out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `$'${out}'`;
}

/** A shell command line from words, each quoted by shellQuote. */
export function shellCommand(words: readonly string[]): string {
  return words.map(shellQuote).join(' ');
}

/**
 * A Markdown code span showing `text` literally: the fence is one backtick longer than the
 * longest run inside it, padded with spaces when the text starts or ends with a backtick.
 */
export function markdownCode(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}
