import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { StoreFactory } from '@flow/core';
import { CliError } from '../errors.js';

/** The backends of this repository: a missing one gets the exact package to install. */
export const FIRST_PARTY_BACKENDS: readonly string[] = ['sqlite', 'file', 'postgres', 'redis'];

/** Schemes that are another name of a backend's own (`postgresql:` is served by the postgres package). */
const FAMILY: Readonly<Record<string, string>> = { postgresql: 'postgres', rediss: 'redis' };

/**
 * Where a backend package is looked for: the project in the current directory first, then beside the CLI.
 * Resolution is `require.resolve`'s (a backend's `exports` map with a `default` condition; `NODE_PATH` counts).
 */
function resolvers(cwd: string): NodeJS.Require[] {
  return [createRequire(join(cwd, 'package.json')), createRequire(import.meta.url)];
}

function codeOf(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

/** The file of `pkg`'s store factory: its `./store` subpath, else its main entry; undefined when not installed. */
function locate(pkg: string, cwd: string): string | undefined {
  const spec = pkg.startsWith('.') ? resolve(cwd, pkg) : pkg;
  if (isAbsolute(spec)) return spec;
  for (const req of resolvers(cwd)) {
    try {
      return req.resolve(`${spec}/store`);
    } catch (error) {
      if (codeOf(error) !== 'ERR_PACKAGE_PATH_NOT_EXPORTED' && codeOf(error) !== 'MODULE_NOT_FOUND')
        throw error;
    }
    try {
      return req.resolve(spec);
    } catch (error) {
      if (codeOf(error) !== 'MODULE_NOT_FOUND') throw error;
    }
  }
  return undefined;
}

function isStoreFactory(value: unknown): value is StoreFactory {
  const f = value as Partial<StoreFactory> | null;
  return (
    typeof f === 'object' &&
    f !== null &&
    Array.isArray(f.schemes) &&
    f.schemes.every((s) => typeof s === 'string') &&
    typeof f.open === 'function'
  );
}

async function loadFactory(pkg: string, file: string): Promise<StoreFactory> {
  const mod = (await import(pathToFileURL(file).href)) as { stores?: unknown };
  if (!isStoreFactory(mod.stores)) {
    throw new CliError(`${pkg} exports no store factory (a "stores" object with schemes and open)`);
  }
  return mod.stores;
}

/**
 * The packages that may serve `scheme` (`'mysql:'`), in the order they are tried: each of `FLOW_BACKENDS`
 * (comma-separated package names or paths), then `@flow/checkpoint-<name>` and `flow-checkpoint-<name>`,
 * where `<name>` is the scheme without its colon (`postgresql:` and `rediss:` count as postgres and redis).
 */
export function candidatePackages(
  scheme: string,
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const name = scheme.replace(/:$/, '');
  const family = FAMILY[name] ?? name;
  const listed = (env.FLOW_BACKENDS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return [...listed, `@flow/checkpoint-${family}`, `flow-checkpoint-${family}`];
}

function notInstalled(scheme: string, candidates: readonly string[]): CliError {
  const name = scheme.replace(/:$/, '');
  const family = FAMILY[name] ?? name;
  if (FIRST_PARTY_BACKENDS.includes(family)) {
    const pkg = `@flow/checkpoint-${family}`;
    return new CliError(`${family} stores need ${pkg}, which is not installed: npm install ${pkg}`);
  }
  const [scoped, plain] = candidates.slice(-2);
  return new CliError(
    `no backend for ${scheme} stores is installed: install the package that serves them (named ${scoped} or ` +
      `${plain}, found from the current directory), or name it in FLOW_BACKENDS`,
  );
}

/**
 * Finds the store factory for a URL scheme among the installed packages (see `candidatePackages`): the
 * first that is installed and lists the scheme.
 *
 * @throws CliError naming the package to install when none is installed
 */
export async function findStoreFactory(
  scheme: string,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string = process.cwd(),
): Promise<StoreFactory> {
  const candidates = candidatePackages(scheme, env);
  const listedCount = candidates.length - 2;
  for (const [i, pkg] of candidates.entries()) {
    const file = locate(pkg, cwd);
    if (file === undefined) {
      if (i < listedCount) throw new CliError(`FLOW_BACKENDS names ${pkg}, which is not installed`);
      continue;
    }
    const factory = await loadFactory(pkg, file);
    if (factory.schemes.map((s) => s.toLowerCase()).includes(scheme)) return factory;
    if (i >= listedCount)
      throw new CliError(`${pkg} does not open ${scheme} stores (it opens ${factory.schemes.join(', ')})`);
  }
  throw notInstalled(scheme, candidates);
}
