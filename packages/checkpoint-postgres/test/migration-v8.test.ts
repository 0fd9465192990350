import { Checkpoint } from '@flow/core';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresCheckpointer } from '../src/index.js';
import { quoteIdent } from '../src/quote.js';
import { earlierReleaseStore } from './support/earlier-release.js';
import { linearSource, linearStates, log } from './support/linear-source.js';
import { dropSchema, freshSchemas, newPool, url } from './support/stores.js';

const freshSchema = freshSchemas();
const admin = newPool(1);
afterAll(() => admin.end());

const COLUMNS =
  'thread, step, revision, state, skeleton, next, interrupted, interrupt_node, interrupt_payload, ts, error, meta, refs';

async function checks(s: string): Promise<string[]> {
  const { rows } = await admin.query<{ conname: string }>(
    `SELECT conname FROM pg_constraint WHERE connamespace = to_regnamespace($1) AND contype = 'c' ORDER BY 1`,
    [s],
  );
  return rows.map((r) => r.conname);
}

describe('migration 8 on a store of version 7', () => {
  it('drops the CHECK constraints and nothing else: earlier rows, summaries and writes read back as they were', async () => {
    // Whole and linear records exactly as core writes them, copied into a store of version 7.
    const states = linearStates();
    const source = await linearSource(states);
    const schema = freshSchema();
    const s = quoteIdent(schema);
    const src = quoteIdent(source);
    await earlierReleaseStore(admin, s, 7);
    expect(await checks(s)).toEqual([
      'checkpoints_revision_check',
      'checkpoints_state_or_skeleton',
      'checkpoints_step_check',
      'threads_status_check',
      'writes_step_check',
    ]);
    await admin.query(`INSERT INTO ${s}.checkpoints (${COLUMNS}) SELECT ${COLUMNS} FROM ${src}.checkpoints`);
    await admin.query(`INSERT INTO ${s}.chunks SELECT * FROM ${src}.chunks`);
    await admin.query(`INSERT INTO ${s}.threads SELECT * FROM ${src}.threads`);
    await admin.query(
      `INSERT INTO ${s}.writes (thread, step, node, key, value) VALUES ('t', 3, 'n', 'k', '{"v":1}')`,
    );
    await dropSchema(url, source);

    const cp = new PostgresCheckpointer(url, { schema });
    try {
      const last = states.length - 1;
      expect(await cp.listThreads()).toEqual([
        {
          thread: 't',
          latestStep: last,
          interrupted: false,
          done: false,
          failed: false,
          error: null,
          ts: expect.any(String),
        },
      ]);
      expect(await checks(s)).toEqual([]);
      expect((await cp.list('t')).map((c) => c.state)).toEqual([...states].reverse());
      expect(await cp.getWrites('t', 3)).toEqual([{ node: 'n', key: 'k', value: { v: 1 } }]);
      const grown = [{ log: log(91) }, { log: log(92) }, { small: true }];
      for (const [i, state] of grown.entries()) {
        await cp.put(
          new Checkpoint({ thread: 't', step: states.length + i, state, next: i === 2 ? [] : ['work'] }),
        );
      }
      for (const [step, state] of [...states, ...grown].entries()) {
        expect((await cp.get('t', step))?.state).toEqual(state);
      }
      expect((await cp.listThreads({ status: 'done' })).map((t) => [t.thread, t.latestStep])).toEqual([
        ['t', states.length + 2],
      ]);
    } finally {
      await cp.close();
    }
  });
});
