import { fileURLToPath } from 'node:url';
import { assertKeyPrefix, assertSchemaName, isFlowError } from '@flow/core';
import { UsageError } from '../errors.js';

/** The kinds of store the CLI opens. */
export type StoreKind = 'sqlite' | 'file' | 'postgres' | 'redis';

/** A parsed `--store` value: which backend, and what to hand its constructor. */
export interface StoreSpec {
  kind: StoreKind;
  /** The URL as given, with any password masked: safe to print. */
  display: string;
  /** A path (sqlite, file) or a connection URL without the `schema`/`prefix` parameter (postgres, redis). */
  target: string;
  /** Postgres schema from `?schema=`, when given. */
  schema?: string;
  /** Redis key prefix from `?prefix=`, when given. */
  prefix?: string;
}

/** What `--store` falls back to when neither the flag nor `FLOW_STORE` is set. */
export const DEFAULT_STORE = 'sqlite:flow.db';

const FORMS = 'sqlite:PATH, a path ending in .db, file:DIR, postgres://…?schema=… or redis://…?prefix=…';

/** Masks the password of a URL-shaped store so it can appear in messages. */
export function maskStore(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#:@]*:)[^/?#@]*@/i, '$1***@');
}

function pathOf(rest: string, url: string): string {
  // `sqlite:///abs/x.db` and `sqlite://rel.db` are accepted as well as `sqlite:x.db`.
  const path = rest.startsWith('//') ? rest.slice(2) : rest;
  if (path === '') throw new UsageError(`store "${url}" names no path`);
  return path;
}

function serverSpec(kind: 'postgres' | 'redis', url: string, param: 'schema' | 'prefix'): StoreSpec {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`store "${maskStore(url)}" is not a valid URL`);
  }
  const values = parsed.searchParams.getAll(param);
  if (values.length > 1) throw new UsageError(`store "${maskStore(url)}" gives ?${param}= more than once`);
  const value = values[0];
  if (value !== undefined) {
    try {
      if (param === 'schema') assertSchemaName(value);
      else assertKeyPrefix(value);
    } catch (error) {
      if (isFlowError(error, 'INVALID_ARGUMENT'))
        throw new UsageError(`store "${maskStore(url)}": ${error.message}`);
      throw error;
    }
  }
  // The driver must not see our parameter: pg and ioredis would read it as one of their own options.
  parsed.searchParams.delete(param);
  const spec: StoreSpec = { kind, display: maskStore(url), target: parsed.toString() };
  if (value !== undefined) spec[param] = value;
  return spec;
}

/**
 * Parses a store URL: `sqlite:PATH` (or a bare path ending in `.db`), `file:DIR` (or a `file://` URL),
 * `postgres://…?schema=…` / `postgresql://…`, `redis://…?prefix=…` / `rediss://…`.
 * The `schema` and `prefix` parameters are validated and removed from the URL given to the driver.
 *
 * @throws UsageError for an unknown scheme, a missing path, or an invalid schema or prefix
 * @example parseStoreUrl('postgres://localhost/app?schema=flow') // { kind: 'postgres', target: 'postgres://localhost/app', schema: 'flow', ... }
 */
export function parseStoreUrl(url: string): StoreSpec {
  const lower = url.toLowerCase();
  if (lower.startsWith('sqlite:')) {
    return { kind: 'sqlite', display: url, target: pathOf(url.slice('sqlite:'.length), url) };
  }
  if (lower.startsWith('file://')) {
    try {
      return { kind: 'file', display: url, target: fileURLToPath(url) };
    } catch {
      throw new UsageError(`store "${url}" is not a valid file:// URL (use file:DIR for a relative path)`);
    }
  }
  if (lower.startsWith('file:')) return { kind: 'file', display: url, target: pathOf(url.slice(5), url) };
  if (lower.startsWith('postgres://') || lower.startsWith('postgresql://')) {
    return serverSpec('postgres', url, 'schema');
  }
  if (lower.startsWith('redis://') || lower.startsWith('rediss://'))
    return serverSpec('redis', url, 'prefix');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    throw new UsageError(`unknown store scheme in "${maskStore(url)}": use ${FORMS}`);
  }
  if (lower.endsWith('.db')) return { kind: 'sqlite', display: url, target: url };
  throw new UsageError(`unknown store "${maskStore(url)}": use ${FORMS}`);
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
