import { type Checkpoint as FlowCheckpoint, normalizeTimestamp } from '@flow/core';
import type { Checkpoint } from '@langchain/langgraph-checkpoint';
import type { StoredValue } from './stored-value.js';

/** The state of a @flow record that holds one LangGraph checkpoint (docs/langgraph.md#what-is-stored). */
export interface LangGraphState {
  /** The checkpoint without its channel values (format version, id, ts, channel and seen versions). */
  checkpoint: Omit<Checkpoint, 'channel_values'>;
  /** Every channel that has a value at this checkpoint, through the saver's serde. */
  values: Record<string, StoredValue>;
  /** The checkpoint's metadata, through the saver's serde. */
  metadata: StoredValue;
}

/** What the record's `meta` says about the LangGraph checkpoint it holds. */
export interface LangGraphFacts {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string;
  /** The parent checkpoint's id, as LangGraph gave it; null for a first checkpoint. */
  parent_id: string | null;
  /** The @flow step of the parent, when it is stored in this thread: parent walks read no index. */
  parent_step: number | null;
  /**
   * Whether every checkpoint id up to this one is greater than the one before (uuid6 ids are time-ordered, so
   * this holds unless two machines' clocks disagree): then the step of an id can be found by binary search.
   */
  sorted: boolean;
}

/** The LangGraph facts of a record, or undefined when it was not written by a `FlowSaver`. */
export function factsOf(cp: FlowCheckpoint): LangGraphFacts | undefined {
  const facts = (cp.meta as { langgraph?: LangGraphFacts }).langgraph;
  return typeof facts === 'object' && facts !== null && typeof facts.checkpoint_id === 'string'
    ? facts
    : undefined;
}

/** Whether a record holds a checkpoint of (threadId, ns). */
export function holds(cp: FlowCheckpoint, threadId: string, ns: string): boolean {
  const facts = factsOf(cp);
  return facts !== undefined && facts.thread_id === threadId && facts.checkpoint_ns === ns;
}

export function stateOf(cp: FlowCheckpoint): LangGraphState {
  return cp.state as LangGraphState;
}

/**
 * A usable @flow `ts` from LangGraph's: its own when it parses, else '' (put stamps the time). LangGraph's own
 * (`toISOString()`) passes core's shape check without a `Date.parse`.
 */
export function flowTs(ts: unknown): string {
  if (typeof ts !== 'string') return '';
  try {
    return normalizeTimestamp(ts, 'ts');
  } catch {
    return '';
  }
}
