import { Checkpoint, isFlowError, jsonSerializer, type Serializer, StorageError } from '@flow/core';
import { createConnection } from 'mysql2/promise';
import { describe, expect, it } from 'vitest';
import { MysqlCheckpointer } from '../src/index.js';
import { freshPrefix, freshStore, url } from './support/stores.js';

async function sql(statement: string): Promise<void> {
  const conn = await createConnection({ uri: url });
  try {
    await conn.query(statement);
  } finally {
    await conn.end();
  }
}

describe('failures', () => {
  it('rejects with StorageError (with the driver error as cause) when no server answers', async () => {
    const cp = new MysqlCheckpointer('mysql://root@127.0.0.1:1/test');
    try {
      const error = await cp.get('t').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StorageError);
      expect((error as StorageError).message).toMatch(/^\[flow:mysql\] setup failed/);
      expect((error as StorageError).cause).toBeInstanceOf(Error);
    } finally {
      await cp.close();
    }
  });

  it('reports a corrupt row as CorruptCheckpointError naming table, thread and step; other rows stay readable', async () => {
    const prefix = freshPrefix();
    const cp = freshStore({ tablePrefix: prefix });
    await cp.put(new Checkpoint({ thread: 'bad', step: 0, state: 'fine' }));
    await cp.put(new Checkpoint({ thread: 'bad', step: 1, state: 'fine' }));
    await cp.put(new Checkpoint({ thread: 'good', step: 0, state: 'fine' }));
    await sql(`UPDATE \`${prefix}checkpoints\` SET state = '{not json' WHERE thread = 'bad' AND step = 1`);
    await sql(`UPDATE \`${prefix}checkpoints\` SET next = 'oops' WHERE thread = 'bad' AND step = 0`);

    const latest = await cp.get('bad').catch((e: unknown) => e);
    expect(isFlowError(latest, 'CORRUPT_CHECKPOINT')).toBe(true);
    expect((latest as Error).message).toContain(`\`${prefix}checkpoints\` thread "bad" step 1`);
    const first = await cp.get('bad', 0).catch((e: unknown) => e);
    expect(isFlowError(first, 'CORRUPT_CHECKPOINT')).toBe(true);
    expect((await cp.get('good'))?.state).toBe('fine');
    expect((await cp.listThreads()).map((t) => t.thread)).toEqual(['bad', 'good']);
    expect(await cp.deleteThread('bad')).toBe(2);
  });

  it('refuses serialized text with a lone surrogate (no UTF-8 form) and writes nothing', async () => {
    const lossy: Serializer = {
      serialize: (value) => (value === 'bad' ? 'x\uD800' : jsonSerializer.serialize(value)),
      deserialize: (text) => jsonSerializer.deserialize(text),
    };
    const cp = freshStore({ serializer: lossy });
    const error = await cp
      .put(new Checkpoint({ thread: 't', step: 0, state: 'bad' }))
      .catch((e: unknown) => e);
    expect(isFlowError(error, 'SERIALIZATION')).toBe(true);
    expect(await cp.get('t')).toBeUndefined();
    expect(await cp.listThreads()).toEqual([]);
  });

  it('rejects a state larger than max_allowed_packet with StorageError, writing nothing, and recovers', async () => {
    const cp = freshStore();
    await cp.put(new Checkpoint({ thread: 't', step: 0, state: 'small' }));
    const huge = new Checkpoint({ thread: 't', step: 1, state: 'x'.repeat(20_000_000) });
    const error = await cp.put(huge).catch((e: unknown) => e);
    // The server refuses the packet and closes the connection: the driver reports that, or the broken pipe.
    expect(isFlowError(error, 'STORAGE')).toBe(true);
    expect((await cp.list('t')).map((c) => c.step)).toEqual([0]);
    await cp.put(new Checkpoint({ thread: 't', step: 2, state: 'after' }));
    expect((await cp.get('t'))?.state).toBe('after');
  }, 30_000);

  it('round-trips ts outside years 0–9999 and prunes by instant across them', async () => {
    const cp = freshStore();
    const times = ['-000001-06-01T00:00:00.000Z', '1970-01-01T00:00:00.000Z', '+010000-01-01T00:00:00.000Z'];
    for (const [step, ts] of times.entries())
      await cp.put(new Checkpoint({ thread: 't', step, state: step, ts }));
    expect((await cp.list('t')).map((c) => c.ts)).toEqual([...times].reverse());
    expect(await cp.prune('t', { olderThan: '2000-01-01T00:00:00Z' })).toBe(2);
    expect((await cp.list('t')).map((c) => c.step)).toEqual([2]);
  });
});
