import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';

/**
 * Bytes of the pages a SQLite file's tables and indexes use, committed WAL frames included (`dbstat`),
 * read through a connection of its own so the store under test is not disturbed.
 */
export function sqliteBytes(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    const row = db.prepare('SELECT sum(pgsize) AS bytes FROM dbstat').get() as { bytes: number | null };
    return row.bytes ?? 0;
  } finally {
    db.close();
  }
}

/** Removes a SQLite database and its WAL and shared-memory files. */
export function removeSqliteFiles(path: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(path + suffix, { force: true });
}

/** `PRAGMA synchronous` of a connection, by name. */
export function synchronousName(db: Database.Database): string {
  const level = Number(db.pragma('synchronous', { simple: true }));
  return ['OFF', 'NORMAL', 'FULL', 'EXTRA'][level] ?? String(level);
}
