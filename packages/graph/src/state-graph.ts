import { InvalidArgumentError } from '@flow/core';
import { CompiledGraph } from './compiled-graph.js';
import { END, RESERVED_NAMES, START } from './constants.js';
import { GRAPH, GraphValidationError } from './errors.js';
import type { Branch, GraphSpec } from './graph-spec.js';
import { type NodeSettings, nodeSettings } from './node-options.js';
import type {
  CompileOptions,
  NodeFn,
  NodeOptions,
  Reducer,
  Router,
  State,
  StateGraphOptions,
} from './types.js';
import { validateGraph } from './validate-graph.js';

const q = JSON.stringify;

/**
 * Builds a graph of nodes over a state of type `S`. Add nodes and edges, then `compile()`.
 *
 * @example
 * const app = new StateGraph<{ n: number }>()
 *   .addNode('inc', (s) => ({ n: s.n + 1 }))
 *   .addEdge(START, 'inc')
 *   .addEdge('inc', END)
 *   .compile();
 * await app.invoke({ n: 0 }); // { status: 'done', state: { n: 1 }, step: 1, thread: '…' }
 */
export class StateGraph<S extends State = State> {
  readonly #nodes = new Map<string, NodeFn<S>>();
  readonly #settings = new Map<string, NodeSettings>();
  readonly #edges: (readonly [string, string])[] = [];
  readonly #branches: Branch<S>[] = [];
  readonly #reducers = new Map<string, Reducer<unknown>>();

  constructor(options: StateGraphOptions<S> = {}) {
    for (const [key, reducer] of Object.entries(options.reducers ?? {})) {
      if (typeof reducer !== 'function')
        throw new GraphValidationError(`reducer of ${q(key)} is not a function`);
      this.#reducers.set(key, reducer as Reducer<unknown>);
    }
  }

  /**
   * Adds a node. Rejects a duplicate name, `START`/`END`, or an empty name with `GraphValidationError`, and
   * bad `options` (`retry`, `timeoutMs` out of range) with `InvalidArgumentError`.
   */
  addNode(name: string, fn: NodeFn<S>, options?: NodeOptions): this {
    if (typeof name !== 'string' || name === '')
      throw new GraphValidationError('a node needs a non-empty name');
    if (RESERVED_NAMES.has(name)) throw new GraphValidationError(`${q(name)} is a reserved name`);
    if (this.#nodes.has(name)) throw new GraphValidationError(`node ${q(name)} is already defined`);
    if (typeof fn !== 'function') throw new GraphValidationError(`node ${q(name)} needs a function`);
    const settings = nodeSettings(name, options);
    this.#nodes.set(name, fn);
    if (settings !== undefined) this.#settings.set(name, settings);
    return this;
  }

  /** Adds an edge: after `from` runs, `to` runs (`START` as `from` marks an entry; `END` as `to` ends the branch). */
  addEdge(from: string, to: string): this {
    if (typeof from !== 'string' || typeof to !== 'string') {
      throw new GraphValidationError('an edge needs two node names');
    }
    if (from === END) throw new GraphValidationError('END has no outgoing edges');
    if (to === START) throw new GraphValidationError('no edge may lead to START');
    this.#edges.push([from, to]);
    return this;
  }

  /**
   * After `from` runs, `router(state)` picks a node name, `END`, or an array of them (fan-out). With `targets`,
   * a returned name outside them (`END` is always allowed) fails the run, and `compile()` can check reachability.
   */
  addConditionalEdges(from: string, router: Router<S>, targets?: readonly string[]): this {
    if (typeof from !== 'string')
      throw new GraphValidationError('a conditional edge needs a source node name');
    if (from === END) throw new GraphValidationError('END has no outgoing edges');
    if (typeof router !== 'function')
      throw new GraphValidationError(`router of ${q(from)} is not a function`);
    if (targets !== undefined) {
      if (!Array.isArray(targets) || targets.some((t) => typeof t !== 'string')) {
        throw new GraphValidationError(`targets of ${q(from)} must be an array of node names`);
      }
      if (targets.includes(START)) throw new GraphValidationError('no edge may lead to START');
    }
    this.#branches.push({ from, router, targets: targets && new Set(targets) });
    return this;
  }

  /** Checks the graph (`GraphValidationError`) and returns a runnable, independent snapshot of it. */
  compile(options: CompileOptions = {}): CompiledGraph<S> {
    const interruptBefore = options.interruptBefore ?? [];
    if (!Array.isArray(interruptBefore))
      throw new InvalidArgumentError(`${GRAPH}interruptBefore must be an array`);
    validateGraph({ nodes: this.#nodes, edges: this.#edges, branches: this.#branches, interruptBefore });
    return new CompiledGraph(this.#snapshot(), options);
  }

  #snapshot(): GraphSpec<S> {
    const edges = new Map<string, string[]>();
    for (const [from, to] of this.#edges) {
      if (to === END) continue; // an edge to END adds nothing to a frontier
      const list = edges.get(from);
      if (list === undefined) edges.set(from, [to]);
      else if (!list.includes(to)) list.push(to);
    }
    const branches = new Map<string, Branch<S>[]>();
    for (const b of this.#branches) {
      const list = branches.get(b.from);
      if (list === undefined) branches.set(b.from, [b]);
      else list.push(b);
    }
    const order = new Map<string, number>();
    for (const name of this.#nodes.keys()) order.set(name, order.size);
    return {
      nodes: new Map(this.#nodes),
      settings: new Map(this.#settings),
      order,
      edges,
      branches,
      reducers: new Map(this.#reducers),
    };
  }
}
