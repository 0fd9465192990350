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
  'thread, step, revision, next, interrupted, interrupt_node, interrupt_payload, ts, error, meta, refs';

describe('migration 7 on a store of version 6', () => {
  it('keeps earlier linear rows with their skeleton as JSONB in state; they read back exactly beside new rows', async () => {
    // Linear records exactly as core writes them, in the v6 layout (the skeleton as JSONB in state), copied
    // from a store of this release.
    const states = linearStates();
    const source = await linearSource(states);
    const schema = freshSchema();
    const s = quoteIdent(schema);
    const src = quoteIdent(source);
    await earlierReleaseStore(admin, s, 6);
    await admin.query(`INSERT INTO ${s}.checkpoints (${COLUMNS}, state)
      SELECT ${COLUMNS}, coalesce(state, skeleton::jsonb) FROM ${src}.checkpoints`);
    await admin.query(`INSERT INTO ${s}.chunks SELECT * FROM ${src}.chunks`);
    await admin.query(`INSERT INTO ${s}.threads SELECT * FROM ${src}.threads`);
    await dropSchema(url, source);

    const cp = new PostgresCheckpointer(url, { schema });
    try {
      expect((await cp.list('t')).map((c) => c.state)).toEqual([...states].reverse());
      const layout = async () => {
        const { rows } = await admin.query<{
          step: number;
          state: boolean;
          skeleton: boolean;
          refs: boolean;
        }>(
          `SELECT step, state IS NOT NULL AS state, skeleton IS NOT NULL AS skeleton, refs IS NOT NULL AS refs
           FROM ${s}.checkpoints ORDER BY step`,
        );
        return rows.map(
          (r) => `${r.step}:${r.state ? 'state' : ''}${r.skeleton ? 'skeleton' : ''}${r.refs ? '+refs' : ''}`,
        );
      };
      // Migrated in place: nothing rewritten.
      expect(await layout()).toEqual(['0:state', '1:state+refs', '2:state+refs', '3:state+refs']);
      const grown = [{ log: log(91) }, { log: log(92) }];
      for (const [i, state] of grown.entries()) {
        await cp.put(new Checkpoint({ thread: 't', step: states.length + i, state, next: ['work'] }));
      }
      // The new instance's first put shares nothing it wrote, so it is whole; the next is linear, in skeleton.
      expect(await layout()).toEqual([
        '0:state',
        '1:state+refs',
        '2:state+refs',
        '3:state+refs',
        '4:state',
        '5:skeleton+refs',
      ]);
      expect((await cp.list('t')).map((c) => c.state)).toEqual([...states, ...grown].reverse());
      for (const [step, state] of [...states, ...grown].entries()) {
        expect((await cp.get('t', step))?.state).toEqual(state);
      }
      expect(await cp.prune('t', { beforeStep: 5 })).toBe(5);
      expect((await cp.list('t')).map((c) => c.state)).toEqual([grown[1]]);
    } finally {
      await cp.close();
    }
  });
});
