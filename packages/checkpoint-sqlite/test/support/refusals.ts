import type { Refusal } from '@flow/checkpoint-conformance';
import type Database from 'better-sqlite3';
import type { SqliteCheckpointer } from '../../src/index.js';

/** A trigger that answers every new checkpoint of `thread` with `action`. */
function trigger(db: Database.Database, thread: string, action: string): void {
  const quoted = `'${thread.replaceAll("'", "''")}'`;
  db.exec(`CREATE TRIGGER flow_kit_refuse BEFORE INSERT ON flow_checkpoints WHEN NEW.thread = ${quoted}
    BEGIN SELECT ${action}; END`);
}

/**
 * The kit's "refused puts" suite on SQLite: triggers that fail the put's statement (its savepoint rolls back)
 * or roll back the whole transaction, as SQLite itself can answer a write; run on the connection `withDb`
 * lends for `cp` (its own, or a second one on the file).
 */
export function sqliteRefusals(
  withDb: (cp: SqliteCheckpointer, edit: (db: Database.Database) => void) => void,
): Record<string, Refusal<SqliteCheckpointer>> {
  return {
    'a trigger that fails the statement': async (cp, thread) =>
      withDb(cp, (db) => trigger(db, thread, "RAISE(ABORT, 'refused by a trigger')")),
    'a trigger that rolls back the transaction': async (cp, thread) =>
      withDb(cp, (db) => trigger(db, thread, "RAISE(ROLLBACK, 'rolled back by a trigger')")),
  };
}

/**
 * A deferred foreign key that only the COMMIT checks, so the COMMIT itself fails: on the checkpointer's own
 * connection, which must have foreign keys on (a connection setting, so only a Database passed in can).
 */
export function commitRefusal(
  dbOf: (cp: SqliteCheckpointer) => Database.Database,
): Refusal<SqliteCheckpointer> {
  return async (cp, thread) => {
    const db = dbOf(cp);
    db.pragma('foreign_keys = ON');
    const quoted = `'${thread.replaceAll("'", "''")}'`;
    db.exec(`CREATE TABLE flow_kit_parent (id TEXT PRIMARY KEY);
      CREATE TABLE flow_kit_child (p TEXT REFERENCES flow_kit_parent (id) DEFERRABLE INITIALLY DEFERRED);
      CREATE TRIGGER flow_kit_refuse_commit AFTER INSERT ON flow_checkpoints WHEN NEW.thread = ${quoted}
      BEGIN INSERT INTO flow_kit_child VALUES ('missing'); END`);
  };
}
