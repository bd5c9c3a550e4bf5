// Quoting for text an operator copies into a shell or reads as Markdown. Imports only pure
// modules: workflow code (the Web UI's current details) uses it, and it must stay
// deterministic.
import { inert } from './inert-text';

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
 * A Markdown code span showing `text` literally, the one way onceflow puts a value it did not
 * write (an ID, a reason, an error) into Markdown: inside a code span nothing is markup, and
 * the Web UI's renderer applies no typography there either (outside, `--` becomes a dash,
 * quotes curl, `(c)` becomes ©, bare URLs become links and raw HTML passes through). Control
 * characters are made visible first (a newline would end the span, a blank line the
 * paragraph); the fence is one backtick longer than the longest run inside, padded with
 * spaces when the text starts or ends with one.
 */
export function markdownCode(text: string): string {
  const shown = text === '' ? ' ' : inert(text);
  const longest = Math.max(0, ...(shown.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  const pad = shown.startsWith('`') || shown.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${shown}${pad}${fence}`;
}
