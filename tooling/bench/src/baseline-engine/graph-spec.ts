import type { NodeFn, Reducer, Router, State } from './types.js';

/** A conditional edge: a router and, optionally, the only names it may return (besides `END`). */
export interface Branch<S extends State> {
  readonly from: string;
  readonly router: Router<S>;
  readonly targets: ReadonlySet<string> | undefined;
}

/** A compiled graph's frozen shape, read by the run loop. */
export interface GraphSpec<S extends State> {
  readonly nodes: ReadonlyMap<string, NodeFn<S>>;
  /** Declaration index of each node: frontiers are kept in this order. */
  readonly order: ReadonlyMap<string, number>;
  /** Static edges by source (`START` included), edges to `END` left out. */
  readonly edges: ReadonlyMap<string, readonly string[]>;
  readonly branches: ReadonlyMap<string, readonly Branch<S>[]>;
  readonly reducers: ReadonlyMap<string, Reducer<unknown>>;
}
