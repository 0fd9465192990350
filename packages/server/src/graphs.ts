import {
  type Checkpoint,
  type Checkpointer,
  InvalidArgumentError,
  type ListThreadsOptions,
  type ThreadInfo,
} from '@flow/core';
import type { CompiledGraph, RunResult } from '@flow/graph';
import { SERVER } from './http-error.js';
import type { PendingInterruptJson } from './interrupts.js';

/**
 * What the server needs of a compiled graph; `enqueue` and `fork` are used when the engine has them, and
 * `interruptsOf` when the graph names its interrupts itself (another engine's graph, such as a LangGraph.js one
 * through `servedGraph` of `@flow/langgraph`).
 */
export interface ServedGraph {
  readonly checkpointer: Checkpointer | undefined;
  invoke(input: any, options?: { thread?: string }): Promise<RunResult<any>>;
  resume(thread: string, options?: Record<string, unknown>): Promise<RunResult<any>>;
  getState(thread: string): Promise<Checkpoint | undefined>;
  history(thread: string, options?: { beforeStep?: number; limit?: number }): Promise<Checkpoint[]>;
  enqueue?(input: any, options?: { thread?: string }): Promise<unknown>;
  fork?(thread: string, options: { step: number; to?: string }): Promise<unknown>;
  /** The interrupts an interrupted checkpoint waits on, with the ids to answer with. */
  interruptsOf?(cp: Checkpoint): Promise<PendingInterruptJson[]>;
  /**
   * The graph's runs, as `listThreads` pages them, when not every thread of its store is one (a LangGraph.js
   * graph's subgraph namespaces are threads of their own, but not runs to list or answer).
   */
  listRuns?(opts: ListThreadsOptions): Promise<ThreadInfo[]>;
}

/** A graph by name, with the store it runs on. */
export interface GraphEntry {
  name: string;
  app: ServedGraph;
  store: Checkpointer;
}

/**
 * Checks the `graphs` option: an object of compiled graphs by name, each with a checkpointer (a graph
 * without one has no runs to serve).
 */
export function graphEntries(
  graphs: Record<string, CompiledGraph<any> | ServedGraph>,
): Map<string, GraphEntry> {
  if (typeof graphs !== 'object' || graphs === null) {
    throw new InvalidArgumentError(`${SERVER}graphs must be an object of compiled graphs by name`);
  }
  const entries = new Map<string, GraphEntry>();
  for (const [name, graph] of Object.entries(graphs)) {
    const app = graph as unknown as ServedGraph;
    if (typeof app?.invoke !== 'function' || typeof app.resume !== 'function') {
      throw new InvalidArgumentError(
        `${SERVER}graphs.${name} is not a compiled graph (call compile() on the StateGraph)`,
      );
    }
    if (app.checkpointer === undefined) {
      throw new InvalidArgumentError(
        `${SERVER}graphs.${name} has no checkpointer: compile({ checkpointer })`,
      );
    }
    entries.set(name, { name, app, store: app.checkpointer });
  }
  if (entries.size === 0)
    throw new InvalidArgumentError(`${SERVER}graphs must name at least one compiled graph`);
  return entries;
}
