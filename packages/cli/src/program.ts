import { createRequire } from 'node:module';
import {
  assertThreadId,
  type Checkpointer,
  isFlowError,
  MAX_STEP,
  THREAD_STATUSES,
  type ThreadStatus,
} from '@flow/core';
import { Command, Option } from 'commander';
import { copyCommand } from './commands/copy.js';
import { deleteCommand } from './commands/delete.js';
import { historyCommand } from './commands/history.js';
import { pruneCommand } from './commands/prune.js';
import { setupCommand } from './commands/setup.js';
import { showCommand } from './commands/show.js';
import { threadsCommand } from './commands/threads.js';
import type { Context } from './context.js';
import { UsageError } from './errors.js';
import { registerGraphCommands } from './graph-commands.js';
import type { CliIo } from './io.js';
import { parseInteger, parseKeyList, parseOlderThan, parseStep } from './parse-options.js';
import { registerRekey } from './rekey-program.js';
import { readingSerializer, storeSerializer } from './store/encryption.js';
import { type OpenStoreOptions, withStore } from './store/open-store.js';
import { parseStoreUrl, resolveStoreUrl, type StoreSpec } from './store/store-url.js';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

const STORE_HELP =
  'the store: sqlite:PATH, PATH.db, file:DIR, postgres://…?schema=…, redis://…?prefix=… ' +
  '(default: $FLOW_STORE, else sqlite:flow.db)';

/** How to pass a thread id that looks like an option, for the help of each command that takes one. */
function oddIdHelp(command: string): string {
  return (
    '\nA thread id that starts with "-" goes last, after "--" (which ends the options):\n' +
    `  flow ${command} --store sqlite:flow.db -- -odd-id`
  );
}

/** Checks a THREAD argument up front, so a malformed id is a usage error rather than a storage one. */
function threadArg(value: string): string {
  try {
    assertThreadId(value, 'THREAD');
  } catch (error) {
    if (isFlowError(error, 'INVALID_ARGUMENT')) throw new UsageError(error.message);
    throw error;
  }
  return value;
}

function storeOf(cmd: Command, io: CliIo): StoreSpec {
  const { store } = cmd.optsWithGlobals<{ store?: string }>();
  return parseStoreUrl(resolveStoreUrl(store, io.env));
}

/**
 * The commander definition of `flow`: every command, its flags and its action. Output goes through `io`;
 * errors are thrown (commander's own after it printed them), for `runCli` to turn into exit codes.
 */
export function buildProgram(ctx: Context, io: CliIo): Command {
  const program = new Command('flow')
    .description('Inspect, prune, delete and copy @flow runs in any store.')
    .version(version, '-V, --version', 'print the version')
    .option('--store <url>', STORE_HELP)
    .option('--debug', 'print the stack of an error')
    .helpOption('-h, --help', 'print help')
    .helpCommand('help [command]', 'print help for a command')
    .configureHelp({ showGlobalOptions: true })
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .showHelpAfterError()
    .exitOverride();

  /** Runs a command against the store of `--store`, closing it afterwards. */
  const onStore = (cmd: Command, options: OpenStoreOptions, fn: (store: Checkpointer) => Promise<void>) =>
    withStore(storeOf(cmd, io), { ...options, env: io.env, serializer: readingSerializer(io.env) }, fn);
  const json = () => new Option('--json', 'print one JSON document');
  const redact = () =>
    new Option('--redact <keys>', 'mask these keys (comma-separated) at any depth of the state and payload');

  program
    .command('threads')
    .description('list threads: thread, latest step, status, age')
    .addOption(
      new Option('--status <status>', 'only threads in this state (failed: with their error)').choices(
        THREAD_STATUSES,
      ),
    )
    .option('--limit <n>', 'at most this many threads')
    .addOption(json())
    .action(async (opts: { status?: ThreadStatus; limit?: string; json?: boolean }, cmd: Command) => {
      const limit =
        opts.limit === undefined
          ? undefined
          : parseInteger(opts.limit, '--limit', 1, Number.MAX_SAFE_INTEGER);
      await onStore(cmd, { mustExist: true }, (store) =>
        threadsCommand(ctx, store, { status: opts.status, limit, json: opts.json === true }),
      );
    });

  program
    .command('show')
    .description('print a checkpoint (the latest, or --step N) with its state')
    .argument('<thread>', 'the thread id')
    .addHelpText('after', oddIdHelp('show'))
    .option('--step <n>', 'this step instead of the latest')
    .addOption(redact())
    .addOption(json())
    .action(
      async (thread: string, opts: { step?: string; redact?: string; json?: boolean }, cmd: Command) => {
        const id = threadArg(thread);
        const step = opts.step === undefined ? undefined : parseStep(opts.step, '--step');
        await onStore(cmd, { mustExist: true }, (store) =>
          showCommand(ctx, store, id, {
            step,
            redact: parseKeyList(opts.redact ?? ''),
            json: opts.json === true,
          }),
        );
      },
    );

  program
    .command('history')
    .description('list every step of a thread, newest first')
    .argument('<thread>', 'the thread id')
    .addHelpText('after', oddIdHelp('history'))
    .addOption(redact())
    .addOption(json())
    .action(async (thread: string, opts: { redact?: string; json?: boolean }, cmd: Command) => {
      const id = threadArg(thread);
      await onStore(cmd, { mustExist: true }, (store) =>
        historyCommand(ctx, store, id, { redact: parseKeyList(opts.redact ?? ''), json: opts.json === true }),
      );
    });

  program
    .command('prune')
    .description("remove a thread's old checkpoints (never its latest)")
    .argument('<thread>', 'the thread id')
    .addHelpText('after', oddIdHelp('prune --before-step 3'))
    .option('--before-step <n>', 'remove steps below N')
    .option(
      '--older-than <when>',
      'remove checkpoints written before an ISO-8601 date or a duration ago (30s, 15m, 12h, 7d)',
    )
    .addHelpText('after', '\nWith both bounds, only checkpoints meeting both are removed.')
    .action(async (thread: string, opts: { beforeStep?: string; olderThan?: string }, cmd: Command) => {
      const id = threadArg(thread);
      if (opts.beforeStep === undefined && opts.olderThan === undefined) {
        throw new UsageError('prune needs --before-step N or --older-than ISO|DURATION');
      }
      const beforeStep =
        opts.beforeStep === undefined
          ? undefined
          : parseInteger(opts.beforeStep, '--before-step', 0, MAX_STEP + 1);
      const olderThan = opts.olderThan === undefined ? undefined : parseOlderThan(opts.olderThan, io.now());
      await onStore(cmd, { mustExist: true }, (store) =>
        pruneCommand(ctx, store, id, { beforeStep, olderThan }),
      );
    });

  program
    .command('delete')
    .description("remove a thread's whole history")
    .argument('<thread>', 'the thread id')
    .addHelpText('after', oddIdHelp('delete --yes'))
    .option('-y, --yes', 'do not ask for confirmation')
    .addHelpText(
      'after',
      '\nWithout --yes it asks on a terminal, and refuses (exit 2) when stdin is not a terminal.',
    )
    .action(async (thread: string, opts: { yes?: boolean }, cmd: Command) => {
      const id = threadArg(thread);
      const yes = opts.yes === true;
      if (!yes && io.stdin.isTTY !== true) {
        throw new UsageError('delete asks for confirmation: pass --yes when stdin is not a terminal');
      }
      await onStore(cmd, { mustExist: true }, (store) => deleteCommand(ctx, store, id, { yes }));
    });

  program
    .command('copy')
    .description('copy threads with every step, state and timestamp from one store to another')
    .requiredOption('--from <url>', 'the store to read')
    .requiredOption('--to <url>', 'the store to write (created if needed)')
    .option('--thread <thread>', 'copy only this thread')
    .addHelpText(
      'after',
      '\nSteps already in the target with identical content are skipped, so a second run copies nothing.\n' +
        'Nothing in the target is overwritten: a step it holds with other content is reported (exit 1).',
    )
    .action(async (opts: { from: string; to: string; thread?: string }) => {
      const from = parseStoreUrl(opts.from);
      const to = parseStoreUrl(opts.to);
      const thread = opts.thread === undefined ? undefined : threadArg(opts.thread);
      // Both sides with the same keys: a copy keeps thread and step, so its values stay readable.
      // Without FLOW_KEYS, an encrypted source is refused (set FLOW_KEYS) rather than copied as ciphertext.
      const serializer = storeSerializer(io.env);
      await withStore(
        from,
        { mustExist: true, env: io.env, serializer: readingSerializer(io.env) },
        (source) =>
          withStore(to, { env: io.env, serializer }, async (target) => {
            await copyCommand(ctx, source, target, thread === undefined ? {} : { thread });
          }),
      );
    });

  program
    .command('setup')
    .description('create the store or apply its migrations')
    .action(async (_opts: unknown, cmd: Command) => {
      const spec = storeOf(cmd, io);
      await onStore(cmd, {}, (store) => setupCommand(ctx, store, spec.display));
    });

  registerGraphCommands(program, ctx, io, threadArg);
  registerRekey(program, { ctx, storeOf: (cmd) => storeOf(cmd, io), threadArg });

  // Without a command, say so before the usage text (commander would print only the help). Set after the
  // subcommands are defined, which would otherwise inherit the permissive setting.
  program.allowExcessArguments(true).action((_opts: unknown, cmd: Command) => {
    const [name] = cmd.args;
    throw new UsageError(name === undefined ? 'missing command' : `unknown command '${name}'`);
  });

  return program;
}
