import { type Checkpointer, isFlowError, type Serializer } from '@flow/core';
import { CliError, UsageError } from '../errors.js';
import { findStoreFactory } from './backend-registry.js';
import type { StoreSpec } from './store-url.js';

/** Options of `openStore`. */
export interface OpenStoreOptions {
  /**
   * Refuse a store that does not exist yet (a sqlite file or file directory that is missing, a Postgres schema
   * or Redis prefix that holds no store) instead of creating an empty one: a typo in a path, schema or prefix
   * should not leave a new store behind. `setup` and the target of `copy` create.
   * @default false
   */
  mustExist?: boolean;
  /** The serializer the store's values go through (the encrypted one `FLOW_KEYS` asks for). @default the backend's */
  serializer?: Serializer | undefined;
  /** Where `FLOW_BACKENDS` is read. @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
}

function noStore(spec: StoreSpec): CliError {
  return new CliError(`no store at ${spec.display} (run "flow setup --store ${spec.display}" to create one)`);
}

/**
 * Opens the checkpointer for a parsed store URL through the store factory of the backend that serves its
 * scheme, found among the installed packages (see docs/writing-a-checkpointer.md). The caller closes it
 * (see `withStore`).
 *
 * @throws CliError when no installed backend serves the scheme (the message names the package to install)
 *   or, with `mustExist`, when the store does not exist
 * @throws UsageError when the backend finds the URL malformed (a bad path, schema or prefix)
 */
export async function openStore(spec: StoreSpec, options: OpenStoreOptions = {}): Promise<Checkpointer> {
  const factory = await findStoreFactory(spec.scheme, options.env ?? process.env);
  let store: Checkpointer | undefined;
  try {
    store = await factory.open(spec.url, {
      mustExist: options.mustExist === true,
      ...(options.serializer === undefined ? {} : { serializer: options.serializer }),
    });
  } catch (error) {
    if (isFlowError(error, 'INVALID_ARGUMENT')) {
      throw new UsageError(`store "${spec.display}": ${error.message}`, { cause: error });
    }
    throw error;
  }
  if (store === undefined) throw noStore(spec);
  return store;
}

/** Opens a store, runs `fn` with it, and closes it on every path so the process can exit promptly. */
export async function withStore<T>(
  spec: StoreSpec,
  options: OpenStoreOptions,
  fn: (store: Checkpointer) => Promise<T>,
): Promise<T> {
  const store = await openStore(spec, options);
  try {
    return await fn(store);
  } finally {
    // A failure to close must not hide the command's own result or error.
    await store.close().catch(() => {});
  }
}
