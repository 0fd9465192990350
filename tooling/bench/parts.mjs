import { SqliteCheckpointer } from '@flow/checkpoint-sqlite';
import { Checkpoint, decodeRecord, jsonSerializer } from '@flow/core';
import Database from 'better-sqlite3';
import { growingStates } from './dist/data.js';

const states = growingStates(20, 2048);
const path = '/tmp/parts-flow.db';
const f = new SqliteCheckpointer(path, { synchronous: 'normal' });
for (let t = 0; t < 50; t++)
  for (let s = 0; s < 20; s++)
    await f.put(new Checkpoint({ thread: `t${t}`, step: s, state: states[s], next: ['a'] }));
const db = new Database(path);
const COLUMNS = 'thread, step, revision, ts, next, interrupted, interrupt_node, interrupt_payload, state';
const s9 = db.prepare(
  `SELECT ${COLUMNS} FROM flow_checkpoints WHERE thread = @thread ORDER BY step DESC LIMIT 1`,
);
const s1 = db
  .prepare(`SELECT state FROM flow_checkpoints WHERE thread = ? ORDER BY step DESC LIMIT 1`)
  .pluck();
const row = s9.get({ thread: 't1' });
const rec = {
  thread: row.thread,
  step: row.step,
  state: row.state,
  next: JSON.parse(row.next),
  interrupted: false,
  interruptNode: null,
  interruptPayload: row.interrupt_payload,
  ts: row.ts,
  revision: row.revision,
};
const parsed = JSON.parse(row.state);
const cases = {
  'sql 1 col pluck': () => s1.get('t1'),
  'sql 9 cols named': () => s9.get({ thread: 't1' }),
  'JSON.parse state': () => JSON.parse(row.state),
  'jsonSerializer.deserialize': () => jsonSerializer.deserialize(row.state),
  'new Checkpoint(decoded)': () => new Checkpoint({ ...rec, state: parsed, interruptPayload: null }),
  decodeRecord: () => decodeRecord(rec, jsonSerializer, 'x'),
  'flow.get (async)': null,
  'raw get+parse': () => JSON.parse(s1.get('t1')),
};
for (let r = 0; r < 4; r++) {
  const out = [];
  for (const [name, fn] of Object.entries(cases)) {
    const N = 20000;
    let t0;
    if (fn === null) {
      for (let i = 0; i < 500; i++) await f.get('t1');
      t0 = performance.now();
      for (let i = 0; i < N; i++) await f.get('t1');
    } else {
      for (let i = 0; i < 500; i++) fn();
      t0 = performance.now();
      for (let i = 0; i < N; i++) fn();
    }
    out.push(`${name} ${(((performance.now() - t0) * 1000) / N).toFixed(2)}`);
  }
  if (r > 0) console.log(out.join(' | '));
}
await f.close();
db.close();
for (const s of ['', '-wal', '-shm']) (await import('node:fs')).rmSync(path + s, { force: true });
