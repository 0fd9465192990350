import { describeCheckpointer } from '@flow/checkpoint-conformance';
import { Checkpoint, compareThreadIds } from '@flow/core';
import { uniquePrefix } from '@flow/test-db';
import { Cluster, Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { RedisCheckpointer } from '../src/index.js';
import { keyLayout } from '../src/keys.js';
// @ts-expect-error: a plain JS fixture without types (child processes import it as it is).
import { ClusterCheckpointer } from './fixtures/cluster-checkpointer.mjs';
import { rewindToLayout5, rewindToLayout6 } from './support/earlier-layouts.js';

/** The three primaries of this run's Redis Cluster (started on free loopback ports by @flow/test-db). */
const nodes = inject('flowTestRedisClusterNodes');

const open = (prefix: string): RedisCheckpointer => new ClusterCheckpointer(nodes, { prefix });

/** Deletes a prefix's keys on every primary (SCAN sees one node's keys only). */
async function deleteEverywhere(prefix: string): Promise<void> {
  await Promise.all(
    nodes.map(async ({ host, port }) => {
      const node = new Redis({ host, port });
      try {
        let cursor = '0';
        do {
          const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
          cursor = next;
          // One key at a time: a cluster node refuses a DEL whose keys sit in different slots.
          for (const key of keys) await node.del(key);
        } while (cursor !== '0');
      } finally {
        node.disconnect();
      }
    }),
  );
}

describeCheckpointer<RedisCheckpointer>('redis cluster', {
  create: async () => open(uniquePrefix()),
  reopen: async (cp) => open(cp.prefix),
  reopenWith: async (cp, options) => new ClusterCheckpointer(nodes, { prefix: cp.prefix, ...options }),
  countChunks: async (cp, thread) => {
    const admin = new Cluster(nodes);
    try {
      return await admin.hlen(keyLayout(cp.prefix, { cluster: true }).chunks(thread));
    } finally {
      admin.disconnect();
    }
  },
  openInChild: (cp) => ({
    module: new URL('./fixtures/cluster-checkpointer.mjs', import.meta.url),
    export: 'ClusterCheckpointer',
    args: [nodes, { prefix: cp.prefix }],
  }),
  cleanup: (cp) => deleteEverywhere(cp.prefix),
  timeout: 30_000,
});

describe('on a Redis Cluster', () => {
  const prefix = uniquePrefix();
  const cp = open(prefix);
  afterAll(async () => {
    await cp.close();
    await deleteEverywhere(prefix);
  });
  // Ids whose UTF-16 order differs from code-point order (U+FFFD vs U+1F600), and ids spread over buckets.
  const ids = [
    'a',
    'b',
    'z',
    '\uFFFD',
    '😀',
    'x|y',
    '{t}',
    '}',
    ...Array.from({ length: 30 }, (_, i) => `t${i}`),
  ];

  it('pages listThreads in code-point order across every bucket and primary', async () => {
    for (const id of ids) await cp.put(new Checkpoint({ thread: id, step: 0, state: {}, next: ['n'] }));
    const pages: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await cp.listThreads({ limit: 4, ...(after === undefined ? {} : { after }) });
      if (page.length === 0) break;
      pages.push(...page.map((t) => t.thread));
      after = page.at(-1)!.thread;
    }
    expect(pages).toEqual([...ids].sort(compareThreadIds));
    expect((await cp.listThreads({ status: 'running', after: 't1', limit: 2 })).map((t) => t.thread)).toEqual(
      ['t10', 't11'],
    );
  });

  it('puts of threads of every bucket arriving together are each stored; a conflicting one fails alone', async () => {
    const conflicting = 't7';
    const settled = await Promise.allSettled(
      ids.map((id) =>
        cp.put(
          new Checkpoint({ thread: id, step: 1, state: { id }, next: ['n'] }),
          id === conflicting ? { ifRevision: 5 } : {},
        ),
      ),
    );
    expect(settled.map((s) => s.status)).toEqual(
      ids.map((id) => (id === conflicting ? 'rejected' : 'fulfilled')),
    );
    const latest = await Promise.all(ids.map(async (id) => (await cp.get(id))?.step));
    expect(latest).toEqual(ids.map((id) => (id === conflicting ? 0 : 1)));
  });

  it.each(['3', '4', '5', '6'])(
    'moves a cluster prefix of layout %s to 7 in setup() and reads its data as it is',
    async (from) => {
      const old = uniquePrefix();
      const writer = open(old);
      const admin = new Cluster(nodes);
      try {
        await writer.put(new Checkpoint({ thread: 'kept', step: 0, state: { n: 1 }, next: ['n'] }));
        expect(await admin.get(`${old}:meta|format`)).toBe('7-cluster-16');
        const listed = await writer.listThreads();
        const keys = keyLayout(old, { cluster: true });
        if (from === '6') await rewindToLayout6(admin, keys, 'kept');
        else await rewindToLayout5(admin, keys, 'kept');
        if (from !== '5' && from !== '6') {
          // Layouts 3 and 4 indexed bare thread ids, in the thread's bucket, and kept no summary text.
          const index = keys.index(keys.bucketOf('kept'));
          for (const key of [index.all, index.running]) {
            await admin.del(key);
            await admin.zadd(key, 0, 'kept');
          }
          await admin.hdel(keys.head('kept'), 'i');
        }
        await admin.set(`${old}:meta|format`, `${from}-cluster-16`);
        const reader = open(old);
        try {
          expect((await reader.get('kept'))?.state).toEqual({ n: 1 });
          expect(await admin.get(`${old}:meta|format`)).toBe('7-cluster-16');
          expect(await reader.listThreads()).toEqual(listed);
          expect(await reader.listThreads({ status: 'running' })).toEqual(listed);
        } finally {
          await reader.close();
        }
      } finally {
        await writer.close();
        admin.disconnect();
        await deleteEverywhere(old);
      }
    },
  );

  it('keeps each thread on one primary, and spreads the threads over several', async () => {
    const owners = new Map<string, Set<number>>();
    await Promise.all(
      nodes.map(async ({ host, port }) => {
        const node = new Redis({ host, port });
        try {
          let cursor = '0';
          do {
            const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
            cursor = next;
            for (const key of keys) {
              if (key.endsWith(':meta|format')) continue;
              const thread = key.slice(key.indexOf('}') + 1);
              const bucket = key.slice(key.indexOf('{'), key.indexOf('}') + 1);
              const owner = owners.get(bucket) ?? new Set<number>();
              owner.add(port);
              owners.set(bucket, owner);
              expect(thread.length).toBeGreaterThan(0);
            }
          } while (cursor !== '0');
        } finally {
          node.disconnect();
        }
      }),
    );
    for (const ports of owners.values()) expect(ports.size).toBe(1);
    expect(new Set([...owners.values()].flatMap((p) => [...p])).size).toBeGreaterThan(1);
  });
});
