import { MemoryCheckpointer } from '@flow/checkpoint-memory';
import type { Checkpointer, Serializer } from '@flow/core';
import { type BaseCheckpointSaver, MemorySaver } from '@langchain/langgraph-checkpoint';
import type { ChatState } from '../data.js';
import { flowSubject } from './flow-subject.js';
import { langgraphSubject } from './langgraph-subject.js';
import type { BackendSuite, OpenedStore, StoreSubject, SubjectFactory } from './types.js';

/**
 * The in-process floor: the state's JSON text in a Map per thread (text, so a stored value is a snapshot,
 * as the other stores' are), read back with JSON.parse.
 */
function rawMemory(): SubjectFactory {
  return {
    side: 'raw',
    label: 'Map of JSON text',
    async open(): Promise<StoreSubject> {
      let threads = new Map<string, string[]>();
      const newest = (thread: string) => {
        const steps = threads.get(thread);
        if (steps === undefined) throw new Error(`raw memory: thread ${thread} not found`);
        return steps;
      };
      return {
        async put(thread: string, step: number, state: ChatState) {
          const steps = threads.get(thread) ?? [];
          if (steps.length === 0) threads.set(thread, steps);
          steps[step] = JSON.stringify(state);
        },
        async getLatest(thread: string) {
          const steps = newest(thread);
          return JSON.parse(steps[steps.length - 1]!);
        },
        async list(thread: string, limit: number) {
          const steps = newest(thread);
          return steps
            .slice(-limit)
            .reverse()
            .map((t) => JSON.parse(t)).length;
        },
        listThreads: async () => [...threads.keys()].sort().length,
        storedBytes: undefined,
        counters: undefined,
        close: async () => {
          threads = new Map();
        },
      };
    },
  };
}

async function openFlow(serializer?: Serializer): Promise<OpenedStore<Checkpointer>> {
  const store = new MemoryCheckpointer(serializer === undefined ? {} : { serializer });
  return { store, counters: undefined, storedBytes: undefined, close: () => store.close() };
}

async function openLangGraph(): Promise<OpenedStore<BaseCheckpointSaver>> {
  return { store: new MemorySaver(), counters: undefined, storedBytes: undefined, close: async () => {} };
}

/** The in-process comparison: a Map, `MemoryCheckpointer`, and LangGraph's `MemorySaver`. */
export async function memorySuite(): Promise<BackendSuite<Checkpointer, BaseCheckpointSaver>> {
  return {
    id: 'memory',
    subjects: [
      rawMemory(),
      flowSubject('MemoryCheckpointer', () => openFlow()),
      langgraphSubject('MemorySaver', openLangGraph),
    ],
    flowStore: () => openFlow(),
    flowStoreWith: (serializer) => () => openFlow(serializer),
    langgraphStore: openLangGraph,
    notes: [],
  };
}
