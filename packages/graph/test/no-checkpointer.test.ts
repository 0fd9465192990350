import { describe, expect, it } from 'vitest';
import { END, interrupt, NoCheckpointer, START, StateGraph } from '../src/index.js';

type S = { n: number };

const loop = () =>
  new StateGraph<S>()
    .addNode('inc', (s) => ({ n: s.n + 1 }))
    .addEdge(START, 'inc')
    .addConditionalEdges('inc', (s) => (s.n < 5 ? 'inc' : END));

describe('without a checkpointer', () => {
  it('still runs the graph', async () => {
    expect(await loop().compile().invoke({ n: 0 }, { thread: 'mem' })).toEqual({
      thread: 'mem',
      status: 'done',
      state: { n: 5 },
      step: 5,
    });
  });

  it('rejects resume, getState and history with NoCheckpointer', async () => {
    const app = loop().compile();
    for (const call of [() => app.resume('t'), () => app.getState('t'), () => app.history('t')]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NoCheckpointer);
      expect(error).toMatchObject({ code: 'NO_CHECKPOINTER' });
    }
  });

  it('rejects a run whose node calls ctx.interrupt or interrupt() with NoCheckpointer', async () => {
    const viaCtx = new StateGraph<S>()
      .addNode('ask', (_s, ctx) => ({ n: ctx.interrupt<number>('?') }))
      .addEdge(START, 'ask')
      .compile();
    await expect(viaCtx.invoke({ n: 0 })).rejects.toMatchObject({ code: 'NO_CHECKPOINTER' });
    const viaFree = new StateGraph<S>()
      .addNode('ask', () => ({ n: interrupt<number>('?') }))
      .addEdge(START, 'ask')
      .compile();
    await expect(viaFree.invoke({ n: 0 })).rejects.toBeInstanceOf(NoCheckpointer);
  });

  it('rejects an interruptBefore stop with NoCheckpointer', async () => {
    const app = loop().compile({ interruptBefore: ['inc'] });
    await expect(app.invoke({ n: 0 })).rejects.toMatchObject({ code: 'NO_CHECKPOINTER' });
  });

  it('rejects input that is not an object', async () => {
    const app = loop().compile();
    await expect(app.invoke(null as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(app.invoke([] as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
