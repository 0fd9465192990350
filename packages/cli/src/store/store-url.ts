import { UsageError } from '../errors.js';

/** The kinds of store this repository's backends serve (others come from plugins, by URL scheme). */
export type StoreKind = 'sqlite' | 'file' | 'postgres' | 'redis';

/** A parsed `--store` value: the URL scheme that picks the backend, and the URL to hand it. */
export interface StoreSpec {
  /** Lower case, with the colon: `'sqlite:'`, `'postgres:'`, `'mysql:'`. */
  scheme: string;
  /** The URL the backend's store factory opens (a bare `x.db` path becomes `sqlite:x.db`). */
  url: string;
  /** The URL as given, with any password masked: safe to print. */
  display: string;
}

/** What `--store` falls back to when neither the flag nor `FLOW_STORE` is set. */
export const DEFAULT_STORE = 'sqlite:flow.db';

const FORMS =
  'sqlite:PATH, a path ending in .db, file:DIR, postgres://…?schema=…, redis://…?prefix=…, or the URL of an installed backend plugin';

/** Masks the password of a URL-shaped store so it can appear in messages. */
export function maskStore(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#:@]*:)[^/?#@]*@/i, '$1***@');
}

/**
 * Parses a store URL into its scheme (which picks the backend) and the URL to open. A bare path ending in
 * `.db` is a SQLite file. The URL itself is the backend's to read: its store factory checks it.
 *
 * @throws UsageError for a value that is neither a URL with a scheme nor a `.db` path
 * @example parseStoreUrl('postgres://localhost/app?schema=flow') // { scheme: 'postgres:', url: 'postgres://localhost/app?schema=flow', ... }
 */
export function parseStoreUrl(url: string): StoreSpec {
  const display = maskStore(url);
  // Two letters at least, so a Windows drive (`C:\runs.db`) reads as a path.
  const scheme = /^([a-z][a-z0-9+.-]+):/i.exec(url)?.[1];
  if (scheme !== undefined) return { scheme: `${scheme.toLowerCase()}:`, url, display };
  if (url.toLowerCase().endsWith('.db')) return { scheme: 'sqlite:', url: `sqlite:${url}`, display };
  throw new UsageError(`unknown store "${display}": use ${FORMS}`);
}

/** The store URL to use: the `--store` flag, else `FLOW_STORE`, else `sqlite:flow.db`. */
export function resolveStoreUrl(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): string {
  if (flag !== undefined) return flag;
  const fromEnv = env.FLOW_STORE;
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : DEFAULT_STORE;
}
