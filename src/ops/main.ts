/**
 * `npx onceflow …`: the operators' CLI (docs/operations.md). Every command prints a short
 * table, or one JSON document with `--json`; exit codes are in EXIT (output.ts).
 */
import { ConfigError, loadConfig } from '../config';
import { VisibilityValueError } from '../temporal/search-attributes';
import { OpsContext } from './context';
import { listDlq, replayDlq } from './dlq-commands';
import { reapLedger } from './ledger-commands';
import { runReconcileCli } from '../reconcile/main';
import { signalAll } from './bulk-commands';
import { listOrders, showOrder, signalOrder } from './orders-commands';
import { pauseOrders, resumeOrders } from './pause-commands';
import {
  EXIT,
  inert,
  InvalidStateError,
  NotFoundError,
  UsageError,
  type CommandResult,
} from './output';

export const USAGE = `usage: onceflow <command> [options] [--json]

  orders list [--step S] [--status running|failed|completed] [--older-than 10m] [--prefix P] [--limit N]
  orders show [--] <orderId>
  orders retry <orderId> [--reason R]    run the parked step again (same idempotency key)
  orders resolve <orderId> [--reason R]  the parked step's effect is confirmed; continue after it
  orders cancel <orderId> [--reason R]
  orders retry --all [SELECTION] [--reason R] [--yes] [--dry-run]     one batch for many orders
  orders cancel --all [SELECTION] --reason R [--yes] [--dry-run]
      SELECTION: [--step S (default needs_attention)] [--parked-at reserve|charge|email|refund|release]
                 [--older-than 10m] [--prefix P] [--limit N]
  orders pause --step reserve|charge|email|refund|release | --all (every step) [--prefix P] [--yes] [--dry-run]
  orders resume --step … | --all [--jitter 30s] [--prefix P] [--yes] [--dry-run]
      every order command that acts takes --by NAME (default: the OS user) and --reason R
  dlq list [--reason R] [--topic T] [--limit N]        (with when and by whom each entry was replayed)
  dlq replay [--reason R] [--topic T] [--by NAME] [--dry-run] [--yes]   (asks unless --yes; each entry once, ever)
  ledger reap [--older-than-days D] [--schema NAME]
  reconcile [--topic T] [--prefix P] [--stuck-after 10m]   (same as npm run reconcile)

  Everything after \`--\` is an argument, never an option: \`orders retry -- --all\` retries the
  order whose ID is "--all" (commands the Web UI and the CLI suggest always write it so).

exit codes: 0 ok, 1 failed or not found, 2 usage, 78 bad setting
`;

type Command = (ctx: OpsContext, argv: string[]) => Promise<CommandResult>;

/** A command line split where POSIX says: the options before the first `--`, words after. */
export interface CommandLine {
  /** `--json` was given as an option (not as an argument after `--`). */
  json: boolean;
  /** Every word but the `--json` option, `--` and what follows it kept in place. */
  args: string[];
  /** The words before `--`: only these can be options (`--all`, `--json`, ...). */
  options: readonly string[];
}

/**
 * Splits argv at the first `--`. Only what precedes it is looked at for `--json` and for the
 * `--all` that makes retry/cancel a bulk command, so an order ID such as `--all` or `--json`
 * after `--` is that ID and nothing else; the command's own parseArgs honours the same `--`.
 */
export function splitCommandLine(argv: readonly string[]): CommandLine {
  const cut = argv.indexOf('--');
  const options = cut < 0 ? argv : argv.slice(0, cut);
  const rest = cut < 0 ? [] : argv.slice(cut);
  return {
    json: options.includes('--json'),
    args: [...options.filter((a) => a !== '--json'), ...rest],
    options,
  };
}

/** `--all` given as an option, not as an order ID after `--`. */
const isBulk = (argv: string[]) => splitCommandLine(argv).options.includes('--all');

const COMMANDS: Record<string, Record<string, Command>> = {
  orders: {
    list: listOrders,
    show: showOrder,
    retry: (ctx, argv) =>
      isBulk(argv) ? signalAll(ctx, 'retry', argv) : signalOrder(ctx, 'retry', argv),
    resolve: (ctx, argv) => signalOrder(ctx, 'resolve', argv),
    cancel: (ctx, argv) =>
      isBulk(argv) ? signalAll(ctx, 'cancel', argv) : signalOrder(ctx, 'cancel', argv),
    pause: pauseOrders,
    resume: resumeOrders,
  },
  dlq: { list: listDlq, replay: replayDlq },
  ledger: { reap: reapLedger },
};

function exitCodeOf(err: unknown): number {
  if (err instanceof UsageError || err instanceof VisibilityValueError) return EXIT.usage;
  if (err instanceof ConfigError) return EXIT.config;
  // parseArgs throws TypeErrors with ERR_PARSE_ARGS_* codes for unknown or malformed options.
  // Other errors carry numeric codes (KafkaJS) or SQLSTATEs: only a string can be a parse code.
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) return EXIT.usage;
  return EXIT.failure;
}

/**
 * An error's message for the terminal. Our own multi-line messages (a bad setting, no stack
 * to use, bad usage) print as lines, each made inert; any other message may quote a producer
 * or a provider, so it stays one inert line and cannot forge output lines.
 */
function shownMessage(err: unknown, message: string): string {
  const ours = err instanceof ConfigError || err instanceof UsageError;
  return ours ? message.split('\n').map(inert).join('\n') : inert(message);
}

/** Runs one command; returns the exit code. Never throws. */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv = process.env) {
  const { json, args } = splitCommandLine(argv);
  if (args.length === 0 || args[0] === '--help' || args[0] === 'help') {
    process.stdout.write(USAGE);
    return args.length === 0 ? EXIT.usage : EXIT.ok;
  }
  // reconcile has its own flags, output and exit codes (3: a source was unreadable).
  if (args[0] === 'reconcile')
    return runReconcileCli(argv.filter((_, i) => i !== argv.indexOf('reconcile')));
  let ctx: OpsContext | undefined;
  try {
    const command = COMMANDS[args[0]!]?.[args[1] ?? ''];
    if (!command) throw new UsageError(`unknown command: ${args.slice(0, 2).join(' ')}`);
    ctx = new OpsContext(loadConfig(env, { localStack: true }));
    const result = await command(ctx, args.slice(2));
    process.stdout.write(json ? `${JSON.stringify(result.json, null, 2)}\n` : `${result.human}\n`);
    return result.exitCode ?? EXIT.ok;
  } catch (err) {
    const code = exitCodeOf(err);
    const error = {
      error: (err as Error).name ?? 'Error',
      message: (err as Error).message ?? String(err),
    };
    // With --json the error is a JSON document on stdout too, so a script parses one shape.
    if (json) process.stdout.write(`${JSON.stringify({ ...error, exitCode: code }, null, 2)}\n`);
    process.stderr.write(`onceflow: ${shownMessage(err, error.message)}\n`);
    if (code === EXIT.usage) process.stderr.write(USAGE);
    else if (!(
      err instanceof NotFoundError ||
      err instanceof InvalidStateError ||
      code === EXIT.config
    ))
      process.stderr.write(`${(err as Error).stack ?? ''}\n`);
    return code;
  } finally {
    await ctx?.close();
  }
}

if (require.main === module) {
  runCli(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`onceflow: ${String(err)}\n`);
      process.exit(EXIT.failure);
    },
  );
}
