import { MemoryCheckpointer } from '@flow/checkpoint-memory';
import { MemorySaver } from '@langchain/langgraph-checkpoint';
import { describe, expect, it } from 'vitest';
import { flowChat, flowLoop, langgraphChat, langgraphLoop } from '../src/workloads/engine-graphs.js';

describe('the engine workloads run the same graph on both engines', () => {
  it('the loop ends after exactly the asked number of super-steps, with and without a checkpointer', async () => {
    const memory = new MemoryCheckpointer();
    await flowLoop(6, undefined)('a');
    await flowLoop(6, memory)('a');
    // Step 0 is the input; each of the 6 super-steps writes one more.
    expect((await memory.get('a'))?.step).toBe(6);
    await langgraphLoop(6, undefined, 'async')('a');
    const saver = new MemorySaver();
    await langgraphLoop(6, saver, 'sync')('a');
    expect((await saver.getTuple({ configurable: { thread_id: 'a' } }))?.checkpoint.channel_values.n).toBe(6);
  });

  it('the chat graph gains one message per super-step on both engines', async () => {
    const memory = new MemoryCheckpointer();
    await flowChat(5, 200, memory)('c');
    const state = (await memory.get('c'))?.state as { messages: unknown[] } | undefined;
    expect(state?.messages).toHaveLength(5);
    const saver = new MemorySaver();
    await langgraphChat(5, 200, saver)('c');
    const tuple = await saver.getTuple({ configurable: { thread_id: 'c' } });
    expect(tuple?.checkpoint.channel_values.messages).toHaveLength(5);
  });

  it('stops after exactly the asked count, odd or even', async () => {
    for (const steps of [1, 2, 7]) {
      const memory = new MemoryCheckpointer();
      await flowLoop(steps, memory)('odd');
      expect((await memory.get('odd'))?.step).toBe(steps);
    }
  });
});
