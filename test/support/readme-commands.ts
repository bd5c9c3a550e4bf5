/** The marker before each block of commands on README's first screen. */
export const COMMANDS_MARKER = '<!-- readme-commands -->';
/** The marker that ends README's first screen. */
export const FIRST_SCREEN_END = '<!-- first screen ends -->';
/**
 * README's first screen at most: what onceflow is, the two commands, fixing a stuck order,
 * the ~45 lines of a first domain (the program of docs/first-domain.md), the links.
 */
export const FIRST_SCREEN_MAX_LINES = 120;

/** One command line of README's first screen, and what README says it prints. */
export interface ReadmeCommand {
  /** The command as a user types it (the line without its `# comment`). */
  command: string;
  /** Texts quoted ("…") in the line's comment: README's promise of what the output holds. */
  says: string[];
}

/** README's first screen: everything before FIRST_SCREEN_END. Throws when the marker is gone. */
export function firstScreenOf(readme: string): string {
  const end = readme.indexOf(FIRST_SCREEN_END);
  if (end < 0) throw new Error(`README.md has no "${FIRST_SCREEN_END}" marker`);
  return readme.slice(0, end);
}

/**
 * Every command of the first screen's code blocks, in order. Each fenced block there must
 * follow COMMANDS_MARKER, so no command on the first screen escapes the test that runs them;
 * a ```ts block is program text, not commands (the first-domain program, which the package
 * test runs from docs/first-domain.md and a unit test keeps equal to README's copy).
 */
export function firstScreenCommands(readme: string): ReadmeCommand[] {
  const screen = firstScreenOf(readme);
  const commands: ReadmeCommand[] = [];
  for (const m of screen.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)) {
    if (m[1]!.trim() === 'ts') continue;
    const before = screen.slice(0, m.index).trimEnd();
    if (!before.endsWith(COMMANDS_MARKER))
      throw new Error(`a code block on README's first screen lacks "${COMMANDS_MARKER}":\n${m[0]}`);
    for (const raw of m[2]!.split('\n')) {
      const line = raw.trim();
      if (line === '' || line.startsWith('#')) continue;
      const hash = line.search(/\s#\s/);
      const command = (hash < 0 ? line : line.slice(0, hash)).trim();
      const comment = hash < 0 ? '' : line.slice(hash);
      commands.push({ command, says: [...comment.matchAll(/"([^"]+)"/g)].map((q) => q[1]!) });
    }
  }
  return commands;
}

/** Output as README quotes it: runs of spaces and tabs as one space (tables pad their columns). */
export function squeezed(output: string): string {
  return output.replace(/[ \t]+/g, ' ');
}
