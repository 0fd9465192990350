import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describeCheckpointer } from '@flow/checkpoint-conformance';
import { SqliteCheckpointer } from '../src/index.js';

// A temp file per created checkpointer; reopen opens a second connection on the same file.
describeCheckpointer('sqlite', {
  create: async () => new SqliteCheckpointer(join(mkdtempSync(join(tmpdir(), 'flow-kit-')), 'flow.db')),
  reopen: async (cp) => new SqliteCheckpointer(cp.filename),
  cleanup: async (cp) => rmSync(dirname(cp.filename), { recursive: true, force: true }),
});

// ':memory:' is private to its connection, so there is nothing to reopen: the kit reports durability as
// not declared for this harness.
describeCheckpointer('sqlite :memory:', { create: async () => new SqliteCheckpointer(':memory:') });
