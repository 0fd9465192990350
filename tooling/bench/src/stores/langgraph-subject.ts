import type { BaseCheckpointSaver, Checkpoint } from '@langchain/langgraph-checkpoint';
import { uuid6 } from '@langchain/langgraph-checkpoint';
import type { ChatState } from '../data.js';
import type { StoreOpener, StoreSubject, SubjectFactory } from './types.js';

/**
 * Drives a LangGraph.js saver the way its Pregel loop does for one super-step: a checkpoint whose channel
 * values are the state's top-level keys, each at a new version, with the previous checkpoint as parent.
 */
export function langgraphSubject(label: string, open: StoreOpener<BaseCheckpointSaver>): SubjectFactory {
  return {
    side: 'langgraph',
    label,
    async open(): Promise<StoreSubject> {
      const opened = await open();
      const saver = opened.store;
      const parents = new Map<string, string>();
      return {
        async put(thread: string, step: number, state: ChatState) {
          const values = state as unknown as Record<string, unknown>;
          const versions = Object.fromEntries(Object.keys(values).map((k) => [k, step + 1]));
          const checkpoint: Checkpoint = {
            v: 4,
            id: uuid6(step),
            ts: new Date().toISOString(),
            channel_values: { ...values },
            channel_versions: versions,
            versions_seen: {},
          };
          const config = {
            configurable: { thread_id: thread, checkpoint_ns: '', checkpoint_id: parents.get(thread) },
          };
          await saver.put(config, checkpoint, { source: 'loop', step, parents: {} }, versions);
          parents.set(thread, checkpoint.id);
        },
        async getLatest(thread: string) {
          const tuple = await saver.getTuple({ configurable: { thread_id: thread, checkpoint_ns: '' } });
          if (tuple === undefined) throw new Error(`LangGraph ${label}: thread ${thread} not found`);
          return tuple.checkpoint.channel_values;
        },
        async list(thread: string, limit: number) {
          let n = 0;
          for await (const _ of saver.list(
            { configurable: { thread_id: thread, checkpoint_ns: '' } },
            { limit },
          )) {
            n++;
          }
          return n;
        },
        // BaseCheckpointSaver has no thread listing: `list` without a thread reads every checkpoint with its state.
        listThreads: undefined,
        storedBytes: opened.storedBytes,
        counters: opened.counters,
        close: () => opened.close(),
      };
    },
  };
}
