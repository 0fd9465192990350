import { Annotation, Command, END, interrupt, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { FlowSaver } from '../src/index.js';
import { allBackends } from './support/backends.js';

const State = Annotation.Root({ n: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }) });

describe.each(allBackends())('LangGraph threads as @flow runs on $name', (backend) => {
  it('a finished run is done, one whose node threw is failed with the error, each at its latest step', async () => {
    const { store } = await backend.create();
    const saver = new FlowSaver(store);
    let fail = true;
    const app = new StateGraph(State)
      .addNode('one', async () => ({ n: 1 }))
      .addNode('two', async () => {
        if (fail) throw new Error('two is down');
        return { n: 1 };
      })
      .addEdge(START, 'one')
      .addEdge('one', 'two')
      .addEdge('two', END)
      .compile({ checkpointer: saver });
    await expect(app.invoke({ n: 0 }, { configurable: { thread_id: 'broken' } })).rejects.toThrow(
      'two is down',
    );
    fail = false;
    await app.invoke({ n: 0 }, { configurable: { thread_id: 'fine' } });

    const threads = await store.listThreads();
    expect(threads.map((t) => [t.thread, t.done, t.failed, t.interrupted])).toEqual([
      ['broken', false, true, false],
      ['fine', true, false, false],
    ]);
    expect(threads[0]?.error).toEqual({ node: 'two', message: expect.stringContaining('two is down') });
    expect((await store.get('broken'))?.next).toEqual(['two']);
    // One @flow step per LangGraph checkpoint: input, after `__start__`, after `one`, after `two`.
    expect(threads[1]?.latestStep).toBe(3);
    expect((await store.list('fine')).map((c) => c.next)).toEqual([[], ['two'], ['one'], ['__start__']]);
  });

  it('of two questions asked at once, the one answered by id leaves the record once its node finishes, after the other was asked again', async () => {
    const { store } = await backend.create();
    const saver = new FlowSaver(store);
    const Log = Annotation.Root({
      log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
    });
    const app = new StateGraph(Log)
      .addNode('p', async () => {
        const answer = String(interrupt('p?'));
        // Answered: it finishes after `q` has asked again in the same super-step.
        await new Promise((resolve) => setTimeout(resolve, 50));
        return { log: [`p: ${answer}`] };
      })
      .addNode('q', async () => ({ log: [`q: ${String(interrupt('q?'))}`] }))
      .addEdge(START, 'p')
      .addEdge(START, 'q')
      .addEdge('p', END)
      .addEdge('q', END)
      .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: 'two-questions' } };
    await app.invoke({ log: [] }, config);
    expect((await store.get('two-questions'))?.interruptPayload).toEqual(['p?', 'q?']);
    const state = await app.getState(config);
    const p = state.tasks.flatMap((t) => t.interrupts).find((i) => i.value === 'p?')?.id as string;
    await app.invoke(new Command({ resume: { [p]: 'yes' } }), config);
    const latest = await store.get('two-questions');
    expect(latest).toMatchObject({ interrupted: true, interruptNode: 'q', interruptPayload: 'q?' });
  });
});
