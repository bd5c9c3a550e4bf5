/**
 * `npx onceflow …`: the operators' CLI (docs/operations.md). Every command prints a short
 * table, or one JSON document with `--json`; exit codes are in EXIT (output.ts).
 */
import { ConfigError, loadConfig } from '../config';
import { VisibilityValueError } from '../temporal/search-attributes';
import { OpsContext } from './context';
import { listDlq, replayDlq } from './dlq-commands';
import { reapDlqMarks } from './dlq-reap';
import { reapLedger } from './ledger-commands';
import { listDeploymentBuilds } from './builds-commands';
import { pruneBuilds } from './builds-prune';
import { runReconcileCli } from '../reconcile/main';
import { runSetup } from './setup-command';
import { signalAll } from './bulk-commands';
import { listOrders, signalOrder } from './orders-commands';
import { showOrder } from './order-show';
import { pauseOrders, resumeOrders } from './pause-commands';
import type { Domain } from '../engine/define-domain';
import { WORKFLOW_TYPE } from '../domains/orders/workflows/workflow-types';
import { listEntities, signalEntity } from './entity-commands';
import { showEntity } from './entity-show';
import { findOpsDomain, loadDomainsModule, opsDomainsOf, type OpsDomain } from './ops-domain';
import {
  EXIT,
  inert,
  InvalidStateError,
  NotFoundError,
  UsageError,
  type CommandResult,
} from './output';

export const USAGE = `usage: onceflow [--domains-module FILE] <command> [options] [--json]

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
  <domain> list|show|retry|resolve|cancel …   the same for every other registered domain (payouts, yours):
      <domain> list [--step S] [--status …] [--older-than 10m] [--prefix P] [--limit N] · <domain> show [--] <id>
      <domain> retry|resolve|cancel [--] <id> [--reason R] [--by NAME] · <domain> retry|cancel --all [SELECTION]
      <domain> pause|resume --activity NAME | --all [--prefix P] [--yes] [--dry-run]
      --domains-module FILE: the domains come from FILE's export DOMAINS (default: this repo's registry)
  dlq list [--reason R] [--topic T] [--limit N]        (with when and by whom each entry was replayed)
  dlq replay [--reason R] [--topic T] [--by NAME] [--dry-run] [--yes]   (asks unless --yes; each entry once, ever)
  dlq reap [--topic T]     (drops the replay marks of entries Kafka no longer holds)
  ledger reap [--older-than-days D] [--schema NAME]
  builds list [--deployment NAME]     (the worker deployment's builds: open runs, current, code stored)
  builds prune [--deployment NAME] [--older-than-days 7] [--keep 3] [--dry-run]   (stored code no run needs; the table's owner)
  reconcile [--topic T] [--prefix P] [--stuck-after 10m]   (same as npm run reconcile)
  setup                               migrations, and every topic the domains read or publish to,
                                      each with its <topic>.dlq (run once before the bridge)

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

type Group = Record<string, Command>;

const ORDER_WORKFLOW: string = WORKFLOW_TYPE.orderFulfillment;

/** The commands of a registered domain other than orders, built from what the registry says of it. */
function domainGroup(domain: OpsDomain): Group {
  return {
    list: (ctx, argv) => listEntities(ctx, domain, argv),
    show: (ctx, argv) => showEntity(ctx, domain, argv),
    retry: (ctx, argv) =>
      isBulk(argv)
        ? signalAll(ctx, 'retry', argv, domain)
        : signalEntity(ctx, domain, 'retry', argv),
    resolve: (ctx, argv) => signalEntity(ctx, domain, 'resolve', argv),
    cancel: (ctx, argv) =>
      isBulk(argv)
        ? signalAll(ctx, 'cancel', argv, domain)
        : signalEntity(ctx, domain, 'cancel', argv),
    pause: (ctx, argv) => pauseOrders(ctx, argv, domain),
    resume: (ctx, argv) => resumeOrders(ctx, argv, domain),
  };
}

const ORDER_COMMANDS: Group = {
  list: listOrders,
  show: showOrder,
  retry: (ctx, argv) =>
    isBulk(argv) ? signalAll(ctx, 'retry', argv) : signalOrder(ctx, 'retry', argv),
  resolve: (ctx, argv) => signalOrder(ctx, 'resolve', argv),
  cancel: (ctx, argv) =>
    isBulk(argv) ? signalAll(ctx, 'cancel', argv) : signalOrder(ctx, 'cancel', argv),
  pause: (ctx, argv) => pauseOrders(ctx, argv),
  resume: (ctx, argv) => resumeOrders(ctx, argv),
};

const OTHER_COMMANDS: Record<string, Group> = {
  dlq: { list: listDlq, replay: replayDlq, reap: reapDlqMarks },
  ledger: { reap: reapLedger },
  builds: { list: listDeploymentBuilds, prune: pruneBuilds },
};

/**
 * The command a command line names. `orders` keeps its own commands (its reservation and
 * provider ledger in `show`); every other registered domain gets the generic ones. An unknown
 * group is a UsageError naming the registered domains.
 */
export function findCommand(domains: readonly OpsDomain[], group: string, verb: string): Command {
  // Own keys only: `constructor` or `toString` is no command.
  const commands = Object.hasOwn(OTHER_COMMANDS, group)
    ? OTHER_COMMANDS[group]!
    : (() => {
        const domain = findOpsDomain(domains, group);
        // This repository's order domain; a team's own `orders` gets the generic commands.
        const ours = domain.name === 'orders' && domain.workflowType === ORDER_WORKFLOW;
        return ours ? ORDER_COMMANDS : domainGroup(domain);
      })();
  const command = Object.hasOwn(commands, verb) ? commands[verb] : undefined;
  if (!command)
    throw new UsageError(
      `unknown command: ${group} ${verb} (${group} takes ${Object.keys(commands).join(', ')})`,
    );
  return command;
}

/** Options of runCli. */
export interface RunCliOptions {
  /**
   * The registered domains the CLI serves. Default: `--domains-module FILE`'s, else this
   * repository's registry (src/domains: orders, payouts).
   * @example runCli(process.argv.slice(2), process.env, { domains: [giftCards] })
   */
  domains?: readonly Domain[];
}

/** `--domains-module FILE` (or `=FILE`) in front of the command, and the rest. */
export function splitDomainsModule(argv: readonly string[]): {
  modulePath?: string;
  rest: string[];
} {
  const [first, second] = argv;
  if (first === '--domains-module') {
    if (second === undefined || second.startsWith('-'))
      throw new UsageError('--domains-module needs a FILE');
    return { modulePath: second, rest: argv.slice(2) };
  }
  if (first?.startsWith('--domains-module=')) {
    const path = first.slice('--domains-module='.length);
    if (!path) throw new UsageError('--domains-module needs a FILE');
    return { modulePath: path, rest: argv.slice(1) };
  }
  return { rest: [...argv] };
}

/** This repository's registry (orders, payouts), loaded only when no other list is given. */
function loadRegisteredDomains(): readonly Domain[] {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on demand: a team's own list replaces it
  return (require('../domains') as typeof import('../domains')).DOMAINS;
}

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
export async function runCli(
  fullArgv: string[],
  env: NodeJS.ProcessEnv = process.env,
  options: RunCliOptions = {},
) {
  let split: ReturnType<typeof splitDomainsModule>;
  try {
    split = splitDomainsModule(fullArgv);
  } catch (err) {
    process.stderr.write(`onceflow: ${(err as Error).message}\n${USAGE}`);
    return EXIT.usage;
  }
  const argv = split.rest;
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
    const domains =
      options.domains ??
      (split.modulePath ? loadDomainsModule(split.modulePath) : loadRegisteredDomains());
    const result =
      args[0] === 'setup'
        ? await runSetup(loadConfig(env, { localStack: true }), domains, args.slice(1))
        : await (async () => {
            const command = findCommand(opsDomainsOf(domains), args[0]!, args[1] ?? '');
            ctx = new OpsContext(loadConfig(env, { localStack: true }));
            return command(ctx, args.slice(2));
          })();
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
