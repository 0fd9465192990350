import { basename, extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Checkpointer } from '@flow/core';
import { CliError, UsageError } from './errors.js';

/** What the commands need of a compiled graph (the shape of `@flow/graph`'s `CompiledGraph`). */
export interface LoadedGraph {
  readonly checkpointer: Checkpointer | undefined;
  invoke(input: unknown, options?: unknown): Promise<unknown>;
  resume(thread: string, options?: unknown): Promise<unknown>;
  getState(thread: string): Promise<unknown>;
}

function isCompiledGraph(value: unknown): value is LoadedGraph {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.invoke === 'function' && typeof v.resume === 'function' && typeof v.getState === 'function';
}

/** Says what a value is, for the message of a module that exports no compiled graph. */
function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'function') return `a function${value.name ? ` (${value.name})` : ''}`;
  if (typeof value !== 'object') return `a ${typeof value}`;
  const v = value as Record<string, unknown>;
  if (typeof v.compile === 'function' && typeof v.addNode === 'function') {
    return 'a StateGraph that is not compiled (export graph.compile({ checkpointer }))';
  }
  const keys = Object.keys(v);
  return keys.length === 0 ? 'an empty object' : `an object with ${keys.slice(0, 8).join(', ')}`;
}

/** `./app.mjs#pipeline` → the path and the export name (undefined: the default export). */
export function parseGraphSpec(spec: string): { path: string; exportName: string | undefined } {
  const hash = spec.lastIndexOf('#');
  const path = hash === -1 ? spec : spec.slice(0, hash);
  const exportName = hash === -1 ? undefined : spec.slice(hash + 1);
  if (path === '') throw new UsageError(`--graph needs a module path, got ${JSON.stringify(spec)}`);
  if (exportName === '') throw new UsageError(`--graph ${spec}: name the export after '#'`);
  return { path, exportName };
}

/**
 * Loads the compiled graphs a module exports, by name: the default export (or the named one of
 * `#export`), which is a compiled graph or an object of compiled graphs. Each needs a checkpointer.
 * A module that exports no compiled graph is a one-line error naming what it found.
 */
export async function loadGraphs(spec: string, cwd = process.cwd()): Promise<Record<string, LoadedGraph>> {
  const { path, exportName } = parseGraphSpec(spec);
  const file = resolve(cwd, path);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new CliError(`cannot load --graph ${path}: ${message}`, { cause: error });
  }
  const where = exportName === undefined ? 'default export' : `export ${JSON.stringify(exportName)}`;
  if (exportName !== undefined && !Object.hasOwn(mod, exportName)) {
    const names = Object.keys(mod);
    throw new CliError(
      `${path} has no ${where}; it exports ${names.length === 0 ? 'nothing' : names.join(', ')}`,
    );
  }
  const value = mod[exportName ?? 'default'];
  let graphs: Record<string, LoadedGraph>;
  if (isCompiledGraph(value)) {
    graphs = { [exportName ?? basename(file, extname(file))]: value };
  } else if (
    typeof value === 'object' &&
    value !== null &&
    Object.keys(value).length > 0 &&
    Object.values(value).every(isCompiledGraph)
  ) {
    graphs = { ...(value as Record<string, LoadedGraph>) };
  } else {
    const others = exportName === undefined ? Object.keys(mod).filter((k) => k !== 'default') : [];
    const hint =
      others.length > 0 ? ` (other exports: ${others.join(', ')}; pick one with ${path}#name)` : '';
    throw new CliError(
      `${path}: the ${where} is not a compiled graph nor an object of compiled graphs: found ${describe(value)}${hint}`,
    );
  }
  for (const [name, graph] of Object.entries(graphs)) {
    if (graph.checkpointer === undefined) {
      throw new CliError(
        `${path}: graph ${JSON.stringify(name)} has no checkpointer: compile({ checkpointer })`,
      );
    }
  }
  return graphs;
}

/** Closes every distinct checkpointer of the graphs. */
export async function closeGraphs(graphs: Record<string, LoadedGraph>): Promise<void> {
  const stores = new Set(Object.values(graphs).map((g) => g.checkpointer));
  for (const store of stores) await store?.close().catch(() => {});
}
