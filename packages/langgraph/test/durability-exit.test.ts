import { Annotation, Command, END, interrupt, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { FlowSaver } from '../src/index.js';
import { allBackends } from './support/backends.js';

const State = Annotation.Root({
  log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
});

// Under `durability: "exit"` LangGraph puts one checkpoint when the run stops, and writes its tasks' results in
// the same tick as it asks for that put, a few promise jobs before the put starts.
describe.each(allBackends())('durability "exit" on $name', (backend) => {
  it('a run that stops at interrupt() is stored with its question and resumes with Command({ resume })', async () => {
    const { store } = await backend.create();
    const saver = new FlowSaver(store);
    const app = new StateGraph(State)
      .addNode('a', () => ({ log: ['a'] }))
      .addNode('ask', () => ({ log: [`answer:${interrupt({ q: 'ok?' })}`] }))
      .addEdge(START, 'a')
      .addEdge('a', 'ask')
      .addEdge('ask', END)
      .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: 'exit-ask' }, durability: 'exit' as const };

    const first = await app.invoke({ log: ['start'] }, config);
    expect(first.log).toEqual(['start', 'a']);
    const asked = (first as { __interrupt__?: { value: unknown }[] }).__interrupt__;
    expect(asked?.map((i) => i.value)).toEqual([{ q: 'ok?' }]);
    const state = await app.getState(config);
    expect(state.next).toEqual(['ask']);
    expect(state.tasks.map((t) => t.interrupts.map((i) => i.value))).toEqual([[{ q: 'ok?' }]]);
    const [run] = await store.listThreads();
    expect(run).toMatchObject({ thread: 'exit-ask', interrupted: true, done: false });

    const done = await app.invoke(new Command({ resume: 'yes' }), config);
    expect(done.log).toEqual(['start', 'a', 'answer:yes']);
    expect((await store.listThreads())[0]).toMatchObject({
      thread: 'exit-ask',
      interrupted: false,
      done: true,
    });
  });

  it('a run whose parallel node threw keeps the sibling that finished, which is not run again', async () => {
    const { store } = await backend.create();
    const saver = new FlowSaver(store);
    const runs = { ok: 0, bad: 0 };
    let fail = true;
    const app = new StateGraph(State)
      .addNode('ok', () => {
        runs.ok++;
        return { log: ['ok'] };
      })
      .addNode('bad', async () => {
        runs.bad++;
        await new Promise((resolve) => setTimeout(resolve, 10));
        if (fail) throw new Error('bad is down');
        return { log: ['bad'] };
      })
      .addNode('join', () => ({ log: ['join'] }))
      .addEdge(START, 'ok')
      .addEdge(START, 'bad')
      .addEdge(['ok', 'bad'], 'join')
      .addEdge('join', END)
      .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: 'exit-fail' }, durability: 'exit' as const };

    await expect(app.invoke({ log: [] }, config)).rejects.toThrow('bad is down');
    const tuple = await saver.getTuple(config);
    expect(tuple?.pendingWrites?.map(([, channel, value]) => [channel, value])).toContainEqual([
      'log',
      ['ok'],
    ]);
    fail = false;
    const out = await app.invoke(null, config);
    expect(out.log.toSorted()).toEqual(['bad', 'join', 'ok']);
    expect(runs).toEqual({ ok: 1, bad: 2 });
  });
});
