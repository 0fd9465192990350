import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describeCheckpointer } from '@flow/checkpoint-conformance';
import Database from 'better-sqlite3';
import { SqliteCheckpointer } from '../src/index.js';
import { sqliteDamage } from './support/damage.js';
import { commitRefusal, sqliteRefusals } from './support/refusals.js';
import { earlierReleases, newerRelease } from './support/releases.js';

// A temp file per created checkpointer; reopen opens a second connection on the same file, and the kit's
// child processes open the built package (dist/, built by the global setup when stale) on it.
/** How many chunks are stored for `thread`, read through a connection of its own. */
function chunksIn(file: string, thread: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT count(*) FROM flow_chunks WHERE thread = ?').pluck().get(thread) as number;
  } finally {
    db.close();
  }
}

/** Runs `edit` on a second connection on `cp`'s file. */
function onFile(cp: SqliteCheckpointer, edit: (db: Database.Database) => void): void {
  const db = new Database(cp.filename);
  try {
    edit(db);
  } finally {
    db.close();
  }
}

describeCheckpointer('sqlite', {
  create: async () => new SqliteCheckpointer(join(mkdtempSync(join(tmpdir(), 'flow-kit-')), 'flow.db')),
  reopen: async (cp) => new SqliteCheckpointer(cp.filename),
  reopenWith: async (cp, options) => new SqliteCheckpointer(cp.filename, options),
  countChunks: async (cp, thread) => chunksIn(cp.filename, thread),
  openInChild: (cp) => ({
    module: new URL('../dist/index.js', import.meta.url),
    export: 'SqliteCheckpointer',
    args: [cp.filename],
  }),
  cleanup: async (cp) => rmSync(dirname(cp.filename), { recursive: true, force: true }),
  // A second connection on the file edits a row behind the checkpointer's back.
  damage: sqliteDamage(onFile),
  // Triggers a second connection adds to the file.
  refuse: sqliteRefusals(onFile),
  // Copies of files earlier releases wrote, and a file with a newer release's version recorded by hand.
  earlierReleases,
  newerRelease,
  capabilities: { writes: true, leases: true, failedRuns: true },
});

// ':memory:' is private to its connection, so there is nothing to reopen and no child process can open it:
// the kit reports durability and process races as not declared for this harness.
describeCheckpointer('sqlite :memory:', {
  create: async () => new SqliteCheckpointer(':memory:'),
  capabilities: { writes: true, leases: true, failedRuns: true },
});

// A better-sqlite3 Database handed in stays the caller's: the kit's close() must leave it open, so the
// cleanup checks that before closing it (a teardown failure fails the test).
const handed = new WeakMap<SqliteCheckpointer, Database.Database>();
describeCheckpointer('sqlite, a Database passed in', {
  create: async () => {
    const db = new Database(join(mkdtempSync(join(tmpdir(), 'flow-kit-db-')), 'flow.db'));
    const cp = new SqliteCheckpointer(db);
    handed.set(cp, db);
    return cp;
  },
  // A second checkpointer on the same connection: the caller's Database may serve several.
  reopenWith: async (cp, options) => {
    const again = new SqliteCheckpointer(handed.get(cp)!, options);
    handed.set(again, handed.get(cp)!);
    return again;
  },
  countChunks: async (cp, thread) =>
    handed
      .get(cp)!
      .prepare('SELECT count(*) FROM flow_chunks WHERE thread = ?')
      .pluck()
      .get(thread) as number,
  cleanup: async (cp) => {
    const db = handed.get(cp)!;
    if (!db.open) throw new Error('close() closed the Database the caller passed in');
    db.close();
    rmSync(dirname(db.name), { recursive: true, force: true });
  },
  // The caller's own connection edits a row behind the checkpointer's back.
  damage: sqliteDamage((cp, edit) => edit(handed.get(cp)!)),
  // On the caller's connection, a COMMIT can be refused too: a deferred foreign key, with foreign keys on.
  refuse: {
    ...sqliteRefusals((cp, edit) => edit(handed.get(cp)!)),
    'a deferred foreign key that fails the COMMIT': commitRefusal((cp) => handed.get(cp)!),
  },
  capabilities: { writes: true, leases: true, failedRuns: true },
});
