import { existsSync } from 'node:fs';
import type { Checkpointer, Serializer } from '@flow/core';
import { CliError } from '../errors.js';
import type { StoreKind, StoreSpec } from './store-url.js';

/** The package and class that serve each kind of store. They are optional peer dependencies. */
export const BACKEND_PACKAGES: Readonly<Record<StoreKind, { pkg: string; className: string }>> = {
  sqlite: { pkg: '@flow/checkpoint-sqlite', className: 'SqliteCheckpointer' },
  file: { pkg: '@flow/checkpoint-file', className: 'FileCheckpointer' },
  postgres: { pkg: '@flow/checkpoint-postgres', className: 'PostgresCheckpointer' },
  redis: { pkg: '@flow/checkpoint-redis', className: 'RedisCheckpointer' },
};

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
}

type BackendClass = new (target: string, options?: Record<string, unknown>) => Checkpointer;

/** A server-backed checkpointer that can tell whether its store exists without creating it. */
interface ExistenceCheck {
  exists(): Promise<boolean>;
}

function canCheckExistence(store: Checkpointer): store is Checkpointer & ExistenceCheck {
  return typeof (store as Partial<ExistenceCheck>).exists === 'function';
}

function noStore(spec: StoreSpec): CliError {
  return new CliError(`no store at ${spec.display} (run "flow setup --store ${spec.display}" to create one)`);
}

function isMissingPackage(error: unknown, pkg: string): boolean {
  const e = error as { code?: unknown; message?: unknown };
  return (
    (e?.code === 'ERR_MODULE_NOT_FOUND' || e?.code === 'MODULE_NOT_FOUND') &&
    typeof e.message === 'string' &&
    // Only the backend itself: a missing dependency *of* the backend is a different, real error.
    (e.message.includes(`'${pkg}'`) || e.message.includes(`"${pkg}"`))
  );
}

async function loadBackend(kind: StoreKind): Promise<BackendClass> {
  const { pkg, className } = BACKEND_PACKAGES[kind];
  let mod: Record<string, unknown>;
  try {
    // A variable specifier: the backend is resolved at run time, only when a store of its kind is used.
    mod = (await import(pkg)) as Record<string, unknown>;
  } catch (error) {
    if (isMissingPackage(error, pkg)) {
      throw new CliError(`${kind} stores need ${pkg}, which is not installed: npm install ${pkg}`, {
        cause: error,
      });
    }
    throw error;
  }
  const ctor = mod[className];
  if (typeof ctor !== 'function') throw new CliError(`${pkg} does not export ${className}`);
  return ctor as BackendClass;
}

function serializerOption(options: OpenStoreOptions): { serializer?: Serializer } {
  return options.serializer === undefined ? {} : { serializer: options.serializer };
}

/**
 * Opens the checkpointer for a parsed store URL, importing its backend package on demand.
 * The caller closes it (see `withStore`).
 *
 * @throws CliError when the backend package is not installed (the message names it) or, with `mustExist`,
 *   when the store does not exist
 */
export async function openStore(spec: StoreSpec, options: OpenStoreOptions = {}): Promise<Checkpointer> {
  const Backend = await loadBackend(spec.kind);
  if (spec.kind === 'sqlite' || spec.kind === 'file') {
    const inMemory = spec.kind === 'sqlite' && spec.target === ':memory:';
    if (options.mustExist && !inMemory && !existsSync(spec.target)) throw noStore(spec);
    return new Backend(spec.target, serializerOption(options));
  }
  // create: false makes the backend itself refuse to create a schema or prefix, even one that appears between
  // the check below and the command's first call.
  const backendOptions: Record<string, unknown> = {
    ...serializerOption(options),
    ...(options.mustExist ? { create: false } : {}),
  };
  if (spec.kind === 'postgres' && spec.schema !== undefined) backendOptions.schema = spec.schema;
  if (spec.kind === 'redis' && spec.prefix !== undefined) backendOptions.prefix = spec.prefix;
  const store = new Backend(spec.target, backendOptions);
  if (options.mustExist && canCheckExistence(store)) {
    const found = await store.exists().catch(async (error: unknown) => {
      await store.close().catch(() => {});
      throw error;
    });
    if (!found) {
      await store.close().catch(() => {});
      throw noStore(spec);
    }
  }
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
