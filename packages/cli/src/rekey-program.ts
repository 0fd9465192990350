import type { Command } from 'commander';
import { rekeyCommand } from './commands/rekey.js';
import type { Context } from './context.js';
import { UsageError } from './errors.js';
import { observeKeys, storeSerializer } from './store/encryption.js';
import { withStore } from './store/open-store.js';
import type { StoreSpec } from './store/store-url.js';

/** What `flow rekey` needs from the program: the store of `--store` and a THREAD argument check. */
export interface RekeyDeps {
  ctx: Context;
  storeOf(cmd: Command): StoreSpec;
  threadArg(value: string): string;
}

/**
 * Registers `flow rekey THREAD | --all`. It reads with every key of `FLOW_KEYS` — and plaintext records, since
 * migrating a plaintext store is its job — and rewrites what is not under the current key.
 */
export function registerRekey(program: Command, deps: RekeyDeps): void {
  program
    .command('rekey')
    .description('rewrite checkpoints under the current key of FLOW_KEYS (older keys and plaintext ones)')
    .argument('[thread]', 'the thread id (or --all)')
    .option('--all', 'every thread of the store')
    .option('--json', 'print one JSON document')
    .addHelpText(
      'after',
      '\nCheckpoints already under the current key are left alone, so a second run rewrites nothing. Each\n' +
        'rewritten step keeps its ts, next, interrupt fields, error and meta; its revision goes up by 1.\n' +
        'Per-step writes keep their first value and so their key: keep older keys until those steps are pruned.',
    )
    .action(async (thread: string | undefined, opts: { all?: boolean; json?: boolean }, cmd: Command) => {
      if ((thread === undefined) === (opts.all !== true)) {
        throw new UsageError('rekey needs a THREAD or --all (not both)');
      }
      const id = thread === undefined ? undefined : deps.threadArg(thread);
      const serializer = storeSerializer(deps.ctx.io.env, { allowPlaintext: true });
      if (serializer === undefined) {
        throw new UsageError(
          'rekey needs FLOW_KEYS (id:base64key,...; the first key, or FLOW_KEY_CURRENT, is current)',
        );
      }
      const observer = observeKeys(serializer);
      await withStore(deps.storeOf(cmd), { mustExist: true, serializer: observer.serializer }, (store) =>
        rekeyCommand(deps.ctx, store, observer, serializer.current, {
          ...(id === undefined ? {} : { thread: id }),
          json: opts.json === true,
        }),
      );
    });
}
