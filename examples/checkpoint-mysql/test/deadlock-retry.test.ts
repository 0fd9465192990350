import { Checkpoint, isFlowError } from '@flow/core';
import { createPool } from 'mysql2/promise';
import { afterAll, describe, expect, it } from 'vitest';
import type { MysqlConnection, MysqlPool } from '../src/index.js';
import { freshStore, url } from './support/stores.js';

const pool = createPool({ uri: url }) as unknown as MysqlPool;
afterAll(() => pool.end());

/**
 * The real pool, except that the first `victims` summary upserts fail the way InnoDB fails a deadlock victim
 * (errno 1213), after the checkpoint row of that transaction was already written.
 */
function deadlockingPool(victims: number): MysqlPool & { attempts: number } {
  const wrapper = {
    attempts: 0,
    execute: pool.execute.bind(pool),
    query: pool.query.bind(pool),
    end: async () => {},
    async getConnection(): Promise<MysqlConnection> {
      const conn = await pool.getConnection();
      return {
        query: conn.query.bind(conn),
        release: conn.release.bind(conn),
        destroy: conn.destroy.bind(conn),
        async execute(sql: string, values?: unknown[]) {
          if (sql.includes('threads') && sql.startsWith('INSERT')) {
            wrapper.attempts += 1;
            if (wrapper.attempts <= victims) {
              throw Object.assign(new Error('Deadlock found when trying to get lock'), { errno: 1213 });
            }
          }
          return conn.execute(sql, values);
        },
      };
    },
  };
  return wrapper;
}

describe('deadlock victims', () => {
  it('runs the whole transaction again: the rolled-back first attempt leaves no trace', async () => {
    const flaky = deadlockingPool(2);
    const cp = freshStore({}, flaky);
    const stored = await cp.put(new Checkpoint({ thread: 't', step: 0, state: 'x' }), { ifRevision: 0 });
    expect(flaky.attempts).toBe(3);
    // Revision 1, not 3: the inserts of the two failed attempts were rolled back.
    expect(stored.revision).toBe(1);
    expect((await cp.get('t'))?.revision).toBe(1);
  });

  it('gives up after eight attempts with StorageError, writing nothing', async () => {
    const flaky = deadlockingPool(Number.POSITIVE_INFINITY);
    const cp = freshStore({}, flaky);
    const error = await cp.put(new Checkpoint({ thread: 't', step: 0, state: 'x' })).catch((e: unknown) => e);
    expect(isFlowError(error, 'STORAGE')).toBe(true);
    expect(flaky.attempts).toBe(8);
    expect(await cp.get('t')).toBeUndefined();
  });
});
