import { strict as assert } from 'node:assert';
import { createProgress, type ProgressOutput } from '../../../src/util/progress';

function capture(isTTY: boolean): ProgressOutput & { text: string } {
  const out = {
    isTTY,
    text: '',
    write(s: string) {
      out.text += s;
      return true;
    },
  };
  return out;
}

describe('util: createProgress', () => {
  it('off a terminal prints a line every `every` items and at the end', () => {
    const out = capture(false);
    const progress = createProgress('replaying', 250, { out, every: 100 });
    for (let done = 1; done <= 250; done++) progress.update(done);
    progress.finish();
    assert.equal(out.text, 'replaying: 100/250\nreplaying: 200/250\nreplaying: 250/250\n');
  });

  it('off a terminal defaults to a line per tenth, with the detail', () => {
    const out = capture(false);
    const progress = createProgress('workflows finished', 20, { out });
    for (let done = 0; done <= 20; done++) progress.update(done, `(${20 - done} running)`);
    const lines = out.text.trim().split('\n');
    assert.equal(lines.length, 10);
    assert.equal(lines[0], 'workflows finished: 2/20 (18 running)');
    assert.equal(lines.at(-1), 'workflows finished: 20/20 (0 running)');
  });

  it('on a terminal redraws one line and ends it once', () => {
    const out = capture(true);
    const progress = createProgress('pausing', 4, { out });
    progress.update(2);
    progress.update(2);
    progress.update(4);
    progress.finish();
    assert.equal(out.text.split('\r').length - 1, 2);
    assert.match(out.text, /\rpausing \[#{30}\] 4\/4 {3}\n$/);
  });

  it('prints nothing off a terminal when ttyOnly, nor for an empty total', () => {
    const quiet = capture(false);
    createProgress('x', 10, { out: quiet, ttyOnly: true }).update(10);
    const empty = capture(true);
    createProgress('x', 0, { out: empty }).update(0);
    assert.equal(quiet.text + empty.text, '');
  });
});
