import { Checkpoint } from '@flow/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresCheckpointer } from '../src/index.js';
import { checkpoint } from './support/checkpoints.js';
import { countingPool } from './support/counting-pool.js';
import { dropSchema, newPool, uniqueSchema, url } from './support/stores.js';

const schema = uniqueSchema();
const inner = newPool(2);
const pool = countingPool(inner);
// The state `{ refused: true }` serializes to text that is not JSON, which Postgres refuses as JSONB.
const cp = new PostgresCheckpointer(pool, {
  schema,
  serializer: {
    serialize: (value, at) =>
      at?.field === 'state' && (value as { refused?: boolean }).refused ? 'not json' : JSON.stringify(value),
    deserialize: (text) => JSON.parse(text),
  },
});

beforeAll(() => cp.setup());
afterAll(async () => {
  await cp.close();
  await inner.end();
  await dropSchema(url, schema);
});

const writes = (tag: string) => [1, 2].map((n) => ({ node: `task-${n}`, key: '0', value: { tag, n } }));

/** Statements sent while `call` ran. */
async function counted<T>(
  call: () => Promise<T>,
): Promise<{ result: PromiseSettledResult<T>[]; sent: number }> {
  pool.reset();
  const result = await Promise.allSettled([call()]);
  return { result, sent: pool.sent.length };
}

describe('a putWrites and a put of the same thread issued in the same tick', () => {
  it('share one statement; both are stored', async () => {
    await cp.put(checkpoint('t', 0));
    const { sent } = await counted(() =>
      Promise.all([cp.putWrites('t', 0, writes('a')), cp.put(checkpoint('t', 1), { ifRevision: 0 })]),
    );
    expect(sent).toBe(1);
    expect(await cp.getWrites('t', 0)).toEqual(writes('a'));
    expect((await cp.get('t'))?.step).toBe(1);
  });

  it('the first value of a key still wins, and writes of two calls for one step go together', async () => {
    const { sent } = await counted(() =>
      Promise.all([
        cp.putWrites('t', 0, writes('later')),
        cp.putWrites('t', 1, writes('b')),
        cp.putWrites('t', 1, [{ node: 'task-3', key: '0', value: 'c' }, ...writes('ignored')]),
        cp.put(checkpoint('t', 2), { ifRevision: 0 }),
      ]),
    );
    // The step-0 writes could not wait for a put of their own (another step's came next): they went alone.
    expect(sent).toBe(2);
    expect(await cp.getWrites('t', 0)).toEqual(writes('a'));
    expect(await cp.getWrites('t', 1)).toEqual([...writes('b'), { node: 'task-3', key: '0', value: 'c' }]);
  });

  it('a put that conflicts rejects alone: the writes it carried are stored', async () => {
    const [stored, put] = await Promise.allSettled([
      cp.putWrites('t', 2, writes('d')),
      cp.put(checkpoint('t', 2), { ifRevision: 0 }),
    ]);
    expect(stored.status).toBe('fulfilled');
    expect(put).toMatchObject({ status: 'rejected', reason: { code: 'CHECKPOINT_CONFLICT' } });
    expect(await cp.getWrites('t', 2)).toEqual(writes('d'));
  });

  it('a put Postgres refuses rejects alone: the writes go by themselves', async () => {
    const refused = new Checkpoint({ thread: 't', step: 3, state: { refused: true }, next: [] });
    const [stored, put] = await Promise.allSettled([cp.putWrites('t', 3, writes('e')), cp.put(refused)]);
    expect(put).toMatchObject({ status: 'rejected', reason: { code: 'SERIALIZATION' } });
    expect(stored.status).toBe('fulfilled');
    expect(await cp.getWrites('t', 3)).toEqual(writes('e'));
    expect((await cp.get('t'))?.step).toBe(2);
  });

  it('writes with no put after them are stored on their own, and a put of another thread does not take them', async () => {
    const { sent } = await counted(() =>
      Promise.all([cp.putWrites('t', 4, writes('f')), cp.put(checkpoint('other', 0))]),
    );
    expect(sent).toBe(2);
    expect(await cp.getWrites('t', 4)).toEqual(writes('f'));
    expect(await cp.getWrites('other', 0)).toEqual([]);
  });
});
