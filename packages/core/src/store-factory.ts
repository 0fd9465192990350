import type { Checkpointer } from './checkpointer.js';
import { InvalidArgumentError } from './errors.js';
import type { Serializer } from './serializer.js';

/** Options of `StoreFactory#open`. */
export interface StoreOpenOptions {
  /**
   * Open only a store that exists already: resolve `undefined` when there is none, and never create one
   * (a typo in a path, schema or prefix must not leave an empty store behind).
   * @default false
   */
  mustExist?: boolean;
  /** The serializer the store's values go through (an encrypted one, say). @default the backend's own */
  serializer?: Serializer;
}

/**
 * How a backend opens a store from a URL, for tools that take one (the `flow` command). A backend exports
 * one as `stores` from its `./store` subpath (or its main entry); see docs/writing-a-checkpointer.md for how
 * the CLI finds it.
 *
 * @example
 * export const stores: StoreFactory = {
 *   schemes: ['redis:', 'rediss:'],
 *   open: async (url) => new RedisCheckpointer(url),
 * };
 */
export interface StoreFactory {
  /** The URL schemes it opens, lower case, with the colon: `['postgres:', 'postgresql:']`. */
  readonly schemes: readonly string[];
  /**
   * A checkpointer on the store the URL names (the caller closes it), or `undefined` with `mustExist` when
   * there is no store there. A malformed URL or parameter rejects with `InvalidArgumentError`, whose
   * message must not repeat the URL (it may hold a password).
   */
  open(url: string, options?: StoreOpenOptions): Promise<Checkpointer | undefined>;
}

/**
 * Takes the query parameter `name` off a URL, so the driver never sees it: `takeUrlParam('postgres://h/db?schema=x',
 * 'schema')` gives `{ url: 'postgres://h/db', value: 'x' }`. Other parameters stay as they are.
 *
 * @throws InvalidArgumentError when the URL does not parse or gives the parameter more than once
 */
export function takeUrlParam(url: string, name: string): { url: string; value: string | undefined } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    throw new InvalidArgumentError('the store is not a valid URL', { cause: error });
  }
  const values = parsed.searchParams.getAll(name);
  if (values.length > 1) throw new InvalidArgumentError(`the store URL gives ?${name}= more than once`);
  if (values.length === 0) return { url, value: undefined };
  parsed.searchParams.delete(name);
  return { url: parsed.toString(), value: values[0] };
}

/**
 * The path of a path-style store URL, as typed: `sqlite:runs.db` → `runs.db`, `sqlite:///abs/runs.db` →
 * `/abs/runs.db`, `sqlite://rel.db` → `rel.db`.
 *
 * @throws InvalidArgumentError when it names no path
 */
export function storeUrlPath(url: string): string {
  const rest = url.slice(url.indexOf(':') + 1);
  const path = rest.startsWith('//') ? rest.slice(2) : rest;
  if (path === '') throw new InvalidArgumentError('the store URL names no path');
  return path;
}

/**
 * For `StoreFactory#open` with `mustExist`: the store when it says it exists, else `undefined` with the
 * store closed (closed on a failed check too, before the error goes on).
 */
export async function ifStoreExists<C extends Checkpointer & { exists(): Promise<boolean> }>(
  store: C,
): Promise<C | undefined> {
  let found: boolean;
  try {
    found = await store.exists();
  } catch (error) {
    await store.close().catch(() => {});
    throw error;
  }
  if (found) return store;
  await store.close().catch(() => {});
  return undefined;
}

/** `{ serializer }` from open options when one is given, else `{}`: spread into a backend's options. */
export function serializerOf(options: StoreOpenOptions): { serializer?: Serializer } {
  return options.serializer === undefined ? {} : { serializer: options.serializer };
}
