import { emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import { describe, expect, it } from 'vitest';
import { FlowSaver } from '../src/index.js';
import { allBackends } from './support/backends.js';

describe.each(allBackends())('list filter on $name', (backend) => {
  it('a filter key whose value is undefined constrains nothing, as in LangGraph SQLite and Postgres savers', async () => {
    const { store } = await backend.create();
    const saver = new FlowSaver(store);
    let config = { configurable: { thread_id: 'filtered', checkpoint_ns: '' } };
    for (const [step, source] of [
      [-1, 'input'],
      [0, 'loop'],
    ] as const) {
      const checkpoint = { ...emptyCheckpoint(), id: uuid6(-1) };
      config = (await saver.put(config, checkpoint, { source, step, parents: {} }, {})) as typeof config;
    }
    const steps = async (filter: Record<string, unknown>) => {
      const out: unknown[] = [];
      for await (const t of saver.list({ configurable: { thread_id: 'filtered' } }, { filter }))
        out.push(t.metadata?.step);
      return out;
    };
    // An application passing an optional value straight through: `{ source: opts.source }`.
    expect(await steps({ source: undefined })).toEqual([0, -1]);
    expect(await steps({ source: 'loop', user: undefined })).toEqual([0]);
    expect(await steps({ source: 'loop', step: -1 })).toEqual([]);
  });
});
