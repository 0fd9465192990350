import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Checkpoint } from '@flow/core';
import { describe, expect, it } from 'vitest';
import { SqliteCheckpointer } from '../src/index.js';
import { tempDbPath } from './support/databases.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

describe('a get of a linear state while another process removes and restores its thread', () => {
  // A get reads a row with refs again with its chunks in one read transaction. Read outside one, a get
  // between the other process's delete and its restore would pair the row with missing chunks (a
  // CorruptCheckpointError): checked to fail so.
  it('answers the whole state or nothing, never a record without its chunks', {
    timeout: 60_000,
  }, async () => {
    const path = tempDbPath();
    const checkpointer = new SqliteCheckpointer(path);
    const state = { items: Array.from({ length: 40 }, (_, i) => `item ${i} `.repeat(20)) };
    for (let step = 0; step < 3; step++) {
      await checkpointer.put(
        new Checkpoint({ thread: 't', step, state: { items: state.items.slice(0, 20 + step * 10) } }),
      );
    }
    const expected = (await checkpointer.get('t'))!.state;
    expect(expected).toEqual(state);
    // The other process deletes the thread's rows and chunks, then puts them back, each in one transaction.
    const churn = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import Database from 'better-sqlite3';
         const db = new Database(process.argv[1]);
         db.pragma('busy_timeout = 5000');
         const rows = db.prepare("SELECT * FROM flow_checkpoints WHERE thread = 't'").all();
         const chunks = db.prepare("SELECT * FROM flow_chunks WHERE thread = 't'").all();
         const insert = (table, row) => db.prepare('INSERT INTO ' + table + ' (' + Object.keys(row).join(', ') +
           ') VALUES (' + Object.keys(row).map((k) => '@' + k).join(', ') + ')').run(row);
         const remove = db.transaction(() => {
           db.prepare("DELETE FROM flow_checkpoints WHERE thread = 't'").run();
           db.prepare("DELETE FROM flow_chunks WHERE thread = 't'").run();
         });
         const restore = db.transaction(() => {
           for (const row of chunks) insert('flow_chunks', row);
           for (const row of rows) insert('flow_checkpoints', row);
         });
         console.log('ready');
         const until = Date.now() + Number(process.argv[2]);
         while (Date.now() < until) { remove(); restore(); }
         db.close();`,
        path,
        '3000',
      ],
      { cwd: packageDir, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const lines = createInterface({ input: churn.stdout! })[Symbol.asyncIterator]();
    expect((await lines.next()).value).toBe('ready');
    const exited = once(churn, 'exit');
    const seen = { whole: 0, none: 0 };
    // Gets resolve without a turn of the event loop, so the loop watches the clock, not the child's exit.
    const until = Date.now() + 2500;
    while (Date.now() < until) {
      const found = await checkpointer.get('t');
      if (found === undefined) seen.none++;
      else {
        expect(found.state).toEqual(expected);
        seen.whole++;
      }
    }
    const [code] = await exited;
    expect(code).toBe(0);
    // Both outcomes happened, so gets did fall between the other process's writes.
    expect(seen.whole).toBeGreaterThan(0);
    expect(seen.none).toBeGreaterThan(0);
    await checkpointer.close();
  });
});
