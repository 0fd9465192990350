import { afterAll, describe, expect, it } from 'vitest';
import { PostgresCheckpointer } from '../src/index.js';
import { checkpoint } from './support/checkpoints.js';
import { dropSchema, newPool, uniqueSchema, url } from './support/stores.js';

const schema = uniqueSchema();
const a = new PostgresCheckpointer(url, { schema });
const b = new PostgresCheckpointer(url, { schema });
const admin = newPool(1);
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
});
