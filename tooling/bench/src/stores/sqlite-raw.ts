import Database from 'better-sqlite3';
import type { BenchContext } from '../context.js';
import type { ChatState } from '../data.js';
import { removeSqliteFiles, sqliteBytes } from './sqlite-files.js';
import type { StoreSubject, SubjectFactory } from './types.js';

/**
 * The SQLite floor: the cheapest correct write of the same state bytes with the bare driver, one prepared
 * `INSERT OR REPLACE` (its own transaction) in WAL with `synchronous = FULL`, the @flow backend's default,
 * so both pay the same fsync per commit. Reads use the primary key; the thread scan is a covering
 * `GROUP BY` on it, which never touches state.
 */
export function rawSqlite(ctx: BenchContext, synchronous: 'FULL' | 'NORMAL' = 'FULL'): SubjectFactory {
  return {
    side: 'raw',
    label: `INSERT OR REPLACE (WAL, synchronous=${synchronous})`,
    async open(): Promise<StoreSubject> {
      const path = ctx.tempPath('raw');
      const db = new Database(path);
      db.pragma('busy_timeout = 5000');
      db.pragma('journal_mode = WAL');
      db.pragma(`synchronous = ${synchronous}`);
      db.exec(`CREATE TABLE IF NOT EXISTS checkpoints (
        thread TEXT NOT NULL, step INTEGER NOT NULL, state TEXT NOT NULL, PRIMARY KEY (thread, step))`);
      const put = db.prepare('INSERT OR REPLACE INTO checkpoints (thread, step, state) VALUES (?, ?, ?)');
      const get = db
        .prepare('SELECT state FROM checkpoints WHERE thread = ? ORDER BY step DESC LIMIT 1')
        .pluck();
      const list = db
        .prepare('SELECT state FROM checkpoints WHERE thread = ? ORDER BY step DESC LIMIT ?')
        .pluck();
      const scan = db.prepare(
        'SELECT thread, max(step) AS step FROM checkpoints GROUP BY thread ORDER BY thread',
      );
      const close = ctx.track(async () => {
        db.close();
        removeSqliteFiles(path);
      });
      return {
        async put(thread: string, step: number, state: ChatState) {
          put.run(thread, step, JSON.stringify(state));
        },
        async getLatest(thread: string) {
          const text = get.get(thread) as string | undefined;
          if (text === undefined) throw new Error(`raw sqlite: thread ${thread} not found`);
          return JSON.parse(text);
        },
        async list(thread: string, limit: number) {
          return (list.all(thread, limit) as string[]).map((t) => JSON.parse(t)).length;
        },
        listThreads: async () => scan.all().length,
        storedBytes: async () => sqliteBytes(path),
        counters: undefined,
        close,
      };
    },
  };
}
