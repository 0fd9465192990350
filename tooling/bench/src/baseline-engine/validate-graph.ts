import { END, START } from './constants.js';
import { GraphValidationError } from './errors.js';
import type { Branch } from './graph-spec.js';
import type { State } from './types.js';

/** The parts of a graph `compile()` checks. */
export interface GraphParts<S extends State> {
  nodes: ReadonlyMap<string, unknown>;
  edges: readonly (readonly [string, string])[];
  branches: readonly Branch<S>[];
  interruptBefore: readonly string[];
}

const q = JSON.stringify;

/**
 * Rejects with `GraphValidationError`: an edge or target naming an unknown node, no edge from `START`,
 * an unknown `interruptBefore` node, and — when every conditional edge declares its targets — a node no
 * path from `START` reaches.
 */
export function validateGraph<S extends State>(parts: GraphParts<S>): void {
  const { nodes, edges, branches } = parts;
  const isSource = (name: string) => name === START || nodes.has(name);
  const isTarget = (name: string) => name === END || nodes.has(name);

  for (const [from, to] of edges) {
    if (!isSource(from))
      throw new GraphValidationError(`edge ${q(from)} -> ${q(to)} starts at unknown node ${q(from)}`);
    if (!isTarget(to))
      throw new GraphValidationError(`edge ${q(from)} -> ${q(to)} goes to unknown node ${q(to)}`);
  }
  for (const branch of branches) {
    if (!isSource(branch.from)) {
      throw new GraphValidationError(`conditional edge starts at unknown node ${q(branch.from)}`);
    }
    for (const t of branch.targets ?? []) {
      if (!isTarget(t)) {
        throw new GraphValidationError(
          `conditional edge from ${q(branch.from)} names unknown target ${q(t)}`,
        );
      }
    }
  }
  if (!edges.some(([from]) => from === START) && !branches.some((b) => b.from === START)) {
    throw new GraphValidationError('no edge from START: add addEdge(START, "<first node>")');
  }
  for (const name of parts.interruptBefore) {
    if (!nodes.has(name)) throw new GraphValidationError(`interruptBefore names unknown node ${q(name)}`);
  }
  if (branches.every((b) => b.targets !== undefined)) assertAllReachable(parts);
}

function assertAllReachable<S extends State>({ nodes, edges, branches }: GraphParts<S>): void {
  const out = new Map<string, string[]>();
  const link = (from: string, to: string) => {
    const list = out.get(from);
    if (list === undefined) out.set(from, [to]);
    else list.push(to);
  };
  for (const [from, to] of edges) link(from, to);
  for (const b of branches) for (const t of b.targets ?? []) link(b.from, t);

  const seen = new Set<string>([START]);
  const queue = [START];
  for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
    for (const to of out.get(name) ?? []) {
      if (!seen.has(to)) {
        seen.add(to);
        queue.push(to);
      }
    }
  }
  const unreachable = [...nodes.keys()].filter((n) => !seen.has(n));
  if (unreachable.length > 0) {
    throw new GraphValidationError(`no path from START reaches ${unreachable.map((n) => q(n)).join(', ')}`);
  }
}
