import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  COMMANDS_MARKER,
  FIRST_SCREEN_END,
  FIRST_SCREEN_MAX_LINES,
  firstScreenCommands,
  firstScreenOf,
  squeezed,
} from '../support/readme-commands';
import { programOf } from '../support/first-domain-program';

const fence = '```';

describe("README's first-screen commands (what the first-screen test runs)", () => {
  it('takes each marked block line as a command and its quoted comment texts as its output', () => {
    const readme = [
      '# x',
      COMMANDS_MARKER,
      '',
      `${fence}sh`,
      'bash scripts/demo.sh   # ends "all hold" and "Web UI:"',
      '# a comment line',
      '',
      'npm run stack:stop',
      fence,
      FIRST_SCREEN_END,
      `${fence}sh`,
      'after the first screen: not a command',
      fence,
    ].join('\n');
    assert.deepEqual(firstScreenCommands(readme), [
      { command: 'bash scripts/demo.sh', says: ['all hold', 'Web UI:'] },
      { command: 'npm run stack:stop', says: [] },
    ]);
  });

  it('refuses a code block on the first screen without the marker, and a README without an end', () => {
    assert.throws(
      () => firstScreenCommands(`${fence}sh\nnpm run demo\n${fence}\n${FIRST_SCREEN_END}\n`),
      /lacks "<!-- readme-commands -->"/,
    );
    assert.throws(() => firstScreenOf('# x\n'), /no "<!-- first screen ends -->" marker/);
  });

  it('squeezes padded output as README quotes it', () => {
    assert.equal(squeezed('  invariants           all hold'), ' invariants all hold');
  });

  it('takes a ts block as program text, not commands', () => {
    const readme = `${fence}ts\n// main.ts: x\nconst a = 1;\n${fence}\n${FIRST_SCREEN_END}\n`;
    assert.deepEqual(firstScreenCommands(readme), []);
  });

  it(`README.md has a first screen of at most ${FIRST_SCREEN_MAX_LINES} lines with the demo and test commands`, () => {
    const readme = readFileSync(resolve(__dirname, '..', '..', 'README.md'), 'utf8');
    assert.ok(firstScreenOf(readme).trimEnd().split('\n').length <= FIRST_SCREEN_MAX_LINES);
    const commands = firstScreenCommands(readme).map((c) => c.command);
    assert.deepEqual(commands.slice(0, 2), ['bash scripts/demo.sh', 'bash scripts/test.sh']);
  });

  it("README's first screen shows the first-domain program exactly as docs/first-domain.md (which the package test runs)", () => {
    const root = resolve(__dirname, '..', '..');
    const readme = programOf(firstScreenOf(readFileSync(resolve(root, 'README.md'), 'utf8')));
    const doc = programOf(readFileSync(resolve(root, 'docs/first-domain.md'), 'utf8'));
    assert.deepEqual(Object.keys(doc).sort(), ['main.ts', 'workflows.ts']);
    assert.deepEqual(readme, doc);
  });
});
