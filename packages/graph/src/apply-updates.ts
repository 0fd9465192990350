import { InvalidArgumentError } from '@flow/core';
import { GRAPH, InvalidUpdateError } from './errors.js';
import type { Reducer, State } from './types.js';

type Reducers = ReadonlyMap<string, Reducer<unknown>>;
const q = JSON.stringify;

/** True for `{...}`-shaped values: not null, not an array. */
export function isObjectLike(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Sets an own property even for `__proto__`, which plain assignment would treat as the prototype. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

function reduce(reducer: Reducer<unknown>, current: unknown, update: unknown, key: string, node: string) {
  try {
    return reducer(current, update);
  } catch (cause) {
    throw new InvalidUpdateError(`the reducer of ${q(key)} failed on the update of node ${q(node)}`, {
      key,
      nodes: [node],
      cause,
    });
  }
}

/**
 * Applies one super-step's updates in frontier order: reduced keys through their reducer, others replaced.
 * Several nodes writing one key without a reducer is an `InvalidUpdateError` naming every one of them. Returns `state` itself
 * when nothing was written, otherwise a new object (the input is never changed).
 */
export function applyUpdates<S extends State>(
  state: S,
  nodes: readonly string[],
  updates: readonly unknown[],
  reducers: Reducers,
): S {
  let out: Record<string, unknown> | undefined;
  // Only a frontier of several nodes can produce a clash, so a single node pays nothing for the check.
  const writers = nodes.length > 1 ? new Map<string, string>() : undefined;
  for (let i = 0; i < nodes.length; i++) {
    const update = updates[i];
    if (update === undefined || update === null) continue;
    const node = nodes[i] as string;
    if (!isObjectLike(update)) {
      throw new InvalidUpdateError(
        `node ${q(node)} returned ${describe(update)}; a node returns an object or nothing`,
        {
          nodes: [node],
        },
      );
    }
    for (const key of Object.keys(update)) {
      out ??= { ...state };
      const reducer = reducers.get(key);
      if (reducer !== undefined) {
        setOwn(out, key, reduce(reducer, out[key], update[key], key, node));
        continue;
      }
      if (writers !== undefined) {
        const other = writers.get(key);
        if (other !== undefined) throw clash(key, writersOf(key, nodes, updates));
        writers.set(key, node);
      }
      setOwn(out, key, update[key]);
    }
  }
  return (out as S | undefined) ?? state;
}

/** Applies a new run's input to a finished thread's state through the reducers. */
export function applyInput<S extends State>(state: S, input: Partial<S>, reducers: Reducers): S {
  const out: Record<string, unknown> = { ...state };
  for (const key of Object.keys(input)) {
    const reducer = reducers.get(key);
    const value = (input as Record<string, unknown>)[key];
    setOwn(out, key, reducer === undefined ? value : reduce(reducer, out[key], value, key, 'input'));
  }
  return out as S;
}

/** Replaces top-level keys, no reducers: `resume`'s `patch`. */
export function applyPatch<S extends State>(state: S, patch: Partial<S> | undefined): S {
  if (patch === undefined) return state;
  if (!isObjectLike(patch)) throw new InvalidArgumentError(`${GRAPH}patch must be an object of state keys`);
  const out: Record<string, unknown> = { ...state };
  for (const key of Object.keys(patch)) setOwn(out, key, (patch as Record<string, unknown>)[key]);
  return out as S;
}

/** Every node of the super-step whose update has `key`, in frontier order: the error names them all, not the first two. */
function writersOf(key: string, nodes: readonly string[], updates: readonly unknown[]): string[] {
  return nodes.filter((_, i) => {
    const update = updates[i];
    return isObjectLike(update) && Object.hasOwn(update, key);
  });
}

function clash(key: string, writers: readonly string[]): InvalidUpdateError {
  const names = writers.map((name) => q(name));
  const listed = `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
  const verb = names.length === 2 ? 'both' : 'all';
  return new InvalidUpdateError(
    `nodes ${listed} ${verb} wrote ${q(key)} in one super-step; give ${q(key)} a reducer`,
    { key, nodes: writers },
  );
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? `the string ${q(value.slice(0, 40))}` : `a ${typeof value}`;
}
