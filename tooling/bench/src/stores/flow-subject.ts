import { Checkpoint, type Checkpointer } from '@flow/core';
import type { ChatState } from '../data.js';
import type { StoreOpener, StoreSubject, SubjectFactory } from './types.js';

/** The frontier every bench checkpoint carries, as a running graph's would. */
const NEXT = ['agent'];

/** Drives an @flow checkpointer through the public `Checkpointer` protocol, as an application would. */
export function flowSubject(label: string, open: StoreOpener<Checkpointer>): SubjectFactory {
  return {
    side: 'flow',
    label,
    async open(): Promise<StoreSubject> {
      const opened = await open();
      const cp = opened.store;
      return {
        async put(thread: string, step: number, state: ChatState) {
          await cp.put(new Checkpoint({ thread, step, state, next: NEXT }));
        },
        async getLatest(thread: string) {
          const found = await cp.get(thread);
          if (found === undefined) throw new Error(`@flow ${label}: thread ${thread} not found`);
          return found.state;
        },
        async getStep(thread: string, step: number) {
          const found = await cp.get(thread, step);
          if (found === undefined) throw new Error(`@flow ${label}: ${thread} step ${step} not found`);
          return found.state;
        },
        async list(thread: string, limit: number) {
          return (await cp.list(thread, { limit })).length;
        },
        listThreads: async () => (await cp.listThreads()).length,
        storedBytes: opened.storedBytes,
        counters: opened.counters,
        close: () => opened.close(),
      };
    },
  };
}
