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
  'thread, step, revision, next, interrupted, interrupt_node, interrupt_payload, ts, error, meta';

describe('migration 6 on a store of version 5', () => {
  it('turns each text[] of refs into the same ids as one text: linear states read back exactly, and the thread goes on', async () => {
    // Linear records exactly as core writes them, stored in a v5 layout (refs as text[], the skeleton as JSONB
    // in state) by copying them from a store of this release: v5 stored the same records in those columns.
    const states = linearStates();
    const source = await linearSource(states);
    const schema = freshSchema();
    const s = quoteIdent(schema);
    const src = quoteIdent(source);
    await earlierReleaseStore(admin, s, 5);
    await admin.query(`INSERT INTO ${s}.checkpoints (${COLUMNS}, state, refs)
      SELECT ${COLUMNS}, coalesce(state, skeleton::jsonb), string_to_array(refs, ' ') FROM ${src}.checkpoints`);
    await admin.query(`INSERT INTO ${s}.chunks SELECT * FROM ${src}.chunks`);
    await admin.query(`INSERT INTO ${s}.threads SELECT * FROM ${src}.threads`);
    const { rows: before } = await admin.query<{ step: number; refs: string[] | null }>(
      `SELECT step, refs FROM ${s}.checkpoints ORDER BY step`,
    );
    const { rows: written } = await admin.query<{ refs: string | null }>(
      `SELECT refs FROM ${src}.checkpoints ORDER BY step`,
    );
    await dropSchema(url, source);
    // Step 0 shared nothing and is whole; the others reference several chunks each.
    expect(before[0]!.refs).toBeNull();
    expect(before.slice(1).every((r) => Array.isArray(r.refs) && r.refs.length > 1)).toBe(true);

    const cp = new PostgresCheckpointer(url, { schema });
    try {
      expect((await cp.list('t')).map((c) => c.state)).toEqual([...states].reverse());
      for (const [step, state] of states.entries()) expect((await cp.get('t', step))?.state).toEqual(state);
      const { rows: after } = await admin.query<{ refs: string | null }>(
        `SELECT refs FROM ${s}.checkpoints ORDER BY step`,
      );
      expect(after).toEqual(written);
      expect(after.map((r) => r.refs?.split(' ') ?? null)).toEqual(before.map((r) => r.refs));

      // New steps share the migrated chunks; a prune then leaves no chunk that no remaining row references.
      const grown = [{ log: log(91) }, { log: log(92) }];
      for (const [i, state] of grown.entries()) {
        await cp.put(new Checkpoint({ thread: 't', step: states.length + i, state, next: ['work'] }));
      }
      expect((await cp.list('t')).map((c) => c.state)).toEqual([...states, ...grown].reverse());
      expect(await cp.prune('t', { beforeStep: states.length + 1 })).toBe(states.length + 1);
      expect((await cp.list('t')).map((c) => c.state)).toEqual([grown[1]]);
      const { rows: loose } = await admin.query<{ n: number }>(
        `SELECT count(*)::integer AS n FROM ${s}.chunks WHERE id NOT IN (
           SELECT unnest(string_to_array(refs, ' ')) FROM ${s}.checkpoints WHERE refs IS NOT NULL)`,
      );
      expect(loose).toEqual([{ n: 0 }]);
      expect(await cp.get('t', 0)).toBeUndefined();
    } finally {
      await cp.close();
    }
  });
});
