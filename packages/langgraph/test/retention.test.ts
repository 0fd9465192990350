import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { FlowSaver } from '../src/index.js';
import { allBackends } from './support/backends.js';

const State = Annotation.Root({
  config: Annotation<string>(),
  n: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
});

describe.each(allBackends())('a pruned LangGraph thread on $name', (backend) => {
  it('keeps every channel of the steps that remain, and the graph goes on from them', async () => {
    const { store } = await backend.create();
    const saver = new FlowSaver(store);
    const app = new StateGraph(State)
      .addNode('count', async () => ({ n: 1 }))
      .addEdge(START, 'count')
      .addEdge('count', END)
      .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: 'kept' } };
    // `config` is written once, by the first input; later runs only change `n`.
    await app.invoke({ config: 'blue', n: 0 }, config);
    await app.invoke({}, config);
    await app.invoke({}, config);
    const latest = (await store.get('kept'))?.step as number;
    expect(await store.prune('kept', { beforeStep: latest })).toBeGreaterThan(0);
    expect((await store.list('kept')).map((c) => c.step)).toEqual([latest]);

    // The unchanged channel lives in the remaining step itself, not in a pruned one.
    expect((await saver.getTuple(config))?.checkpoint.channel_values).toMatchObject({ config: 'blue', n: 3 });
    const next = await app.invoke({}, config);
    expect(next).toEqual({ config: 'blue', n: 4 });
  });
});
