import { afterAll, describe, expect, it } from 'vitest';
import { PostgresCheckpointer } from '../src/index.js';
import { checkpoint } from './support/checkpoints.js';
import { waitForLockWaiter } from './support/lock-waiter.js';
import { dropSchema, newPool, uniqueSchema, url } from './support/stores.js';

const schema = uniqueSchema();
const a = new PostgresCheckpointer(url, { schema });
const b = new PostgresCheckpointer(url, { schema });
const admin = newPool(2);
afterAll(async () => {
  await a.close();
  await b.close();
  await admin.end();
  await dropSchema(url, schema);
});

describe('deleteThread racing puts on the same thread', () => {
  it('never deadlocks, and never leaves a checkpoint without its summary', async () => {
    await a.setup();
    for (let round = 0; round < 15; round++) {
      const thread = `race-${round}`;
      await a.put(checkpoint(thread, 0));
      await a.put(checkpoint(thread, 1));
      // Overwrites of existing steps, new steps, and deletes from two instances, all at once.
      const results = await Promise.allSettled([
        a.put(checkpoint(thread, 0)),
        b.deleteThread(thread),
        a.put(checkpoint(thread, 2)),
        b.put(checkpoint(thread, 1)),
        a.deleteThread(thread),
        b.put(checkpoint(thread, 3)),
      ]);
      const failures = results.filter((r) => r.status === 'rejected');
      expect(
        failures,
        JSON.stringify(failures.map((f) => String((f as PromiseRejectedResult).reason))),
      ).toEqual([]);
      const { rows } = await admin.query(
        `SELECT (SELECT max(step) FROM "${schema}".checkpoints WHERE thread = $1) AS max_step,
                (SELECT latest_step FROM "${schema}".threads WHERE thread = $1) AS latest_step`,
        [thread],
      );
      expect(rows[0].latest_step, `round ${round}`).toBe(rows[0].max_step);
      const listed = (await a.listThreads()).find((t) => t.thread === thread);
      expect(listed?.latestStep).toBe(rows[0].max_step ?? undefined);
    }
  });

  // A put's statement takes its snapshot before it waits for the thread lock, so it may see a summary that
  // is gone once it holds the lock, or miss one that is there: the summary must still end at the highest step
  // (a summary written by a plain UPDATE of what the snapshot shows would miss both).
  async function putWaitingOn(thread: string, meanwhile: string, step: number): Promise<number | undefined> {
    const holder = await admin.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`${schema}.${thread}`]);
      await holder.query(meanwhile, [thread]);
      const put = b.put(checkpoint(thread, step));
      await waitForLockWaiter(admin, schema, thread);
      await holder.query('COMMIT');
      await put;
    } finally {
      holder.release();
    }
    const { rows } = await admin.query(`SELECT latest_step FROM "${schema}".threads WHERE thread = $1`, [
      thread,
    ]);
    return rows[0]?.latest_step;
  }

  it('a put that waited for a deleteThread leaves the summary of its step, not none', async () => {
    await a.put(checkpoint('gone', 0));
    await a.put(checkpoint('gone', 1));
    const del = `WITH c AS (DELETE FROM "${schema}".checkpoints WHERE thread = $1)
      DELETE FROM "${schema}".threads WHERE thread = $1`;
    expect(await putWaitingOn('gone', del, 5)).toBe(5);
    expect((await a.listThreads()).find((t) => t.thread === 'gone')?.latestStep).toBe(5);
  });

  it('a put that waited for a thread’s first put moves its summary only to a higher step', async () => {
    const first = (step: number) => `WITH c AS (
        INSERT INTO "${schema}".checkpoints (thread, step, revision, state, next, interrupted, interrupt_payload, ts)
        VALUES ($1, ${step}, 1, '{}', '{n}', false, 'null', now()))
      INSERT INTO "${schema}".threads (thread, latest_step, next, interrupted, status, ts, info)
      VALUES ($1, ${step}, '{n}', false, 'running', now(), '${step} running 2026-01-01T00:00:00.000Z')`;
    expect(await putWaitingOn('late-low', first(5), 3)).toBe(5);
    expect(await putWaitingOn('late-high', first(5), 7)).toBe(7);
  });
});
