import { chmodSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Checkpoint } from '@flow/core';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SqliteCheckpointer } from '../src/index.js';
import { tempDbPath } from './support/databases.js';

function modes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir)) out[name] = (statSync(join(dir, name)).mode & 0o777).toString(8);
  return out;
}

let umask: number;
beforeEach(() => {
  // The most permissive umask: whatever is not private now comes from the code, not the environment.
  umask = process.umask(0);
});
afterEach(() => {
  process.umask(umask);
});

it('creates the database file 0600 whatever the umask, and SQLite gives -wal and -shm the same mode', async () => {
  const path = tempDbPath();
  const cp = new SqliteCheckpointer(path);
  await cp.put(new Checkpoint({ thread: 't', step: 0, state: { secret: true } }));
  expect(modes(dirname(path))).toEqual({ 'flow.db': '600', 'flow.db-shm': '600', 'flow.db-wal': '600' });
  await cp.close();
});

it('leaves the mode of an existing database file alone', async () => {
  const path = tempDbPath();
  writeFileSync(path, '');
  chmodSync(path, 0o640);
  const cp = new SqliteCheckpointer(path);
  await cp.put(new Checkpoint({ thread: 't', step: 0, state: 1 }));
  expect(modes(dirname(path))).toEqual({ 'flow.db': '640', 'flow.db-shm': '640', 'flow.db-wal': '640' });
  await cp.close();
});
