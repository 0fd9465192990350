import { MemoryCheckpointer } from '@flow/checkpoint-memory';
import { describe, expect, it } from 'vitest';
import { interrupt, START, StateGraph } from '../src/index.js';

// Its own file, so its own process: AsyncLocalStorage is off when the test starts, as in a fresh application.
const tick = () => new Promise((r) => setTimeout(r, 1));

describe('a swallowed free interrupt() in a process without async context', () => {
  it('still suspends the run when the node catches the signal and returns normally', async () => {
    let runs = 0;
    const app = new StateGraph<{ answer: string }>()
      .addNode('ask', async () => {
        runs += 1;
        await tick();
        let answer = 'none';
        try {
          answer = interrupt<string>('ship it?');
        } catch {
          // a node that catches everything: the interrupt must still win
        }
        return { answer };
      })
      .addEdge(START, 'ask')
      .compile({ checkpointer: new MemoryCheckpointer() });
    const stop = await app.invoke({ answer: '' }, { thread: 'swallowed' });
    expect(stop).toMatchObject({ status: 'interrupted', interrupt: { node: 'ask', payload: 'ship it?' } });
    expect(runs).toBe(2); // the run that found no node, and the re-run with async context on
    const done = await app.resume('swallowed', { answer: 'yes' });
    expect(done.state.answer).toBe('yes');
  });
});
