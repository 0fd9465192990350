import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteCheckpointer } from '../../src/index.js';

/**
 * Database files as earlier releases left them, for the kit's "other releases" suite: the fixtures the
 * package's own upgrade tests read (schema-v1.db: versions recorded without names; schema-v2.db and
 * schema-v3.db: with names), each written through the released code of its schema version.
 */
const FIXTURES = new URL('../fixtures/', import.meta.url);

function copyOf(fixture: string, edit?: (db: Database.Database) => void): SqliteCheckpointer {
  const file = join(mkdtempSync(join(tmpdir(), 'flow-kit-release-')), 'flow.db');
  copyFileSync(new URL(fixture, FIXTURES), file);
  if (edit) {
    const db = new Database(file);
    try {
      edit(db);
    } finally {
      db.close();
    }
  }
  return new SqliteCheckpointer(file);
}

export const earlierReleases = {
  'schema 1, versions recorded without names': async () => copyOf('schema-v1.db'),
  // The releases that brought schema 2 still recorded versions without names.
  'schema 2, versions recorded without names': async () =>
    copyOf('schema-v2.db', (db) => db.exec('ALTER TABLE flow_migrations DROP COLUMN name')),
  'schema 2, versions recorded with names': async () => copyOf('schema-v2.db'),
  // Schema 3 kept the thread summary with a statement of its own in each put, not by triggers.
  'schema 3, linear states, summary kept by the code': async () => copyOf('schema-v3.db'),
};

/** A file set up by this release, then given a schema version past every one it knows, as a newer release would. */
export async function newerRelease(): Promise<SqliteCheckpointer> {
  const file = join(mkdtempSync(join(tmpdir(), 'flow-kit-release-')), 'flow.db');
  const current = new SqliteCheckpointer(file);
  await current.setup();
  await current.close();
  const db = new Database(file);
  try {
    db.prepare('INSERT INTO flow_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
      1000,
      'a newer release',
      new Date().toISOString(),
    );
  } finally {
    db.close();
  }
  return new SqliteCheckpointer(file);
}
