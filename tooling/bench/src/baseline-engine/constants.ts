/** The virtual entry node: `addEdge(START, 'first')` says where a run begins. */
export const START = '__start__';
/** The virtual exit node: an edge to `END` (or a router returning it) ends that branch. */
export const END = '__end__';

/** Names a node may not take. */
export const RESERVED_NAMES: ReadonlySet<string> = new Set([START, END]);
