import { Checkpoint, isFlowError } from '@flow/core';
import { createPool } from 'mysql2/promise';
import { describe, expect, it } from 'vitest';
import { MysqlCheckpointer, type MysqlPool } from '../src/index.js';
import { freshStore, url } from './support/stores.js';

describe('pool ownership', () => {
  it('leaves a pool the user passed in open after close()', async () => {
    const pool = createPool({ uri: url });
    try {
      const cp = freshStore({}, pool as unknown as MysqlPool);
      await cp.put(new Checkpoint({ thread: 't', step: 0, state: 1 }));
      await cp.close();
      const [rows] = await pool.query('SELECT 1 AS one');
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });

  it('ends the pool it created from a URL', async () => {
    const cp = freshStore();
    await cp.put(new Checkpoint({ thread: 't', step: 0, state: 1 }));
    await cp.close();
    const closed = await cp.get('t').catch((error: unknown) => error);
    expect(isFlowError(closed, 'STORAGE')).toBe(true);
  });

  it('rejects something that is neither a URL nor a pool', () => {
    let caught: unknown;
    try {
      new MysqlCheckpointer({ query: () => {} } as unknown as MysqlPool);
    } catch (error) {
      caught = error;
    }
    expect(isFlowError(caught, 'INVALID_ARGUMENT')).toBe(true);
  });
});
