import type { Damage } from '@flow/checkpoint-conformance';
import type Database from 'better-sqlite3';
import type { SqliteCheckpointer } from '../../src/index.js';

/**
 * The kit's "damaged storage" suite on SQLite: each damage edits one column of one row by hand, as another
 * tool (or a bad disk) could. The BLOB ones keep the text's bytes: only the column's type is wrong, which
 * only the backend's own row check can see (the serializer would read the bytes as text).
 */
const EDITS: Record<string, string> = {
  'a state cut off mid-text': 'state = substr(state, 1, length(state) - 3)',
  'a state stored as a BLOB': 'state = CAST(state AS BLOB)',
  'an interrupt payload stored as a BLOB': 'interrupt_payload = CAST(interrupt_payload AS BLOB)',
  'a next that is JSON null, not a list': "next = 'null'",
  'a next stored as a BLOB': 'next = CAST(next AS BLOB)',
  'a next with a number among its node names': `next = '["review", 7]'`,
  'a ts that is not a timestamp': "ts = 'yesterday'",
  'refs that are not JSON': "refs = 'not json'",
  'refs with a number among the chunk ids': "refs = '[7]'",
  'refs stored as a BLOB': 'refs = CAST(\'["a"]\' AS BLOB)',
};

/** The damages, run on the connection `withDb` lends for `cp` (its own, or a second one on the file). */
export function sqliteDamage(
  withDb: (cp: SqliteCheckpointer, edit: (db: Database.Database) => void) => void,
): Record<string, Damage<SqliteCheckpointer>> {
  return Object.fromEntries(
    Object.entries(EDITS).map(([name, set]) => [
      name,
      async (cp: SqliteCheckpointer, at: { thread: string; step: number }) =>
        withDb(cp, (db) => {
          const changed = db
            .prepare(`UPDATE flow_checkpoints SET ${set} WHERE thread = ? AND step = ?`)
            .run(at.thread, at.step).changes;
          if (changed !== 1) throw new Error(`no row to damage at ${at.thread} step ${at.step}`);
        }),
    ]),
  );
}
