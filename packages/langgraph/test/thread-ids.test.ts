import { emptyCheckpoint } from '@langchain/langgraph-checkpoint';
import { describe, expect, it } from 'vitest';
import { FlowSaver, flowThreadOf, parseFlowThread } from '../src/index.js';
import { allBackends } from './support/backends.js';

const meta = { source: 'input' as const, step: -1, parents: {} };
const odd = [
  ['plain', ''],
  ['plain', 'child:1|grandchild:2'],
  ['lg:looks encoded', ''],
  ['nul\u0000inside', ''],
  ['lone \ud800 surrogate', 'ns'],
  ['x'.repeat(600), ''],
  ['plain', 'y'.repeat(600)],
] as const;

describe('thread ids', () => {
  it('map every (thread_id, namespace) to a valid @flow thread id, reversibly unless hashed', () => {
    const seen = new Set<string>();
    for (const [threadId, ns] of odd) {
      const thread = flowThreadOf(threadId, ns);
      expect(thread.length).toBeLessThanOrEqual(512);
      expect(thread.includes('\u0000')).toBe(false);
      expect(thread.isWellFormed()).toBe(true);
      seen.add(thread);
      if (!thread.startsWith('lg#')) expect(parseFlowThread(thread)).toEqual({ threadId, ns });
    }
    expect(seen.size).toBe(odd.length);
    expect(flowThreadOf('order-42', '')).toBe('order-42');
  });
});

describe.each(allBackends())('odd thread ids and namespaces on $name', (backend) => {
  it('round-trip, list per namespace, and deleteThread removes every namespace of a thread', async () => {
    const { store } = await backend.create();
    const saver = new FlowSaver(store);
    for (const [threadId, ns] of odd) {
      const cp = emptyCheckpoint();
      const config = await saver.put(
        { configurable: { thread_id: threadId, checkpoint_ns: ns } },
        cp,
        meta,
        {},
      );
      expect(config.configurable).toEqual({ thread_id: threadId, checkpoint_ns: ns, checkpoint_id: cp.id });
      expect((await saver.getTuple(config))?.config).toEqual(config);
    }
    const namespaces = async (threadId: string) => {
      const found: string[] = [];
      for await (const t of saver.list({ configurable: { thread_id: threadId } }))
        found.push(t.config.configurable?.checkpoint_ns);
      return found.sort();
    };
    expect(await namespaces('plain')).toEqual(['', 'child:1|grandchild:2', 'y'.repeat(600)]);
    await saver.deleteThread('plain');
    expect(await namespaces('plain')).toEqual([]);
    expect(await namespaces('x'.repeat(600))).toEqual(['']);
    let all = 0;
    for await (const _ of saver.list({ configurable: {} })) all++;
    expect(all).toBe(odd.length - 3);
  });
});
