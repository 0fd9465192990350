import type { Cluster, Redis } from 'ioredis';
import type { KeyLayout } from '../../src/keys.js';

/**
 * Rewrites what layout 7 stored for `thread` as layout 6 stored it: the steps of its blocks in one sorted set,
 * and a head without `b`.
 */
export async function rewindToLayout6(
  admin: Redis | Cluster,
  keys: KeyLayout,
  thread: string,
): Promise<void> {
  for (const block of await admin.zrange(keys.stepBlocks(thread), 0, -1)) {
    const key = keys.stepBlock(thread, Number(block));
    for (const step of await admin.zrange(key, 0, -1)) await admin.zadd(keys.steps(thread), step, step);
    await admin.del(key);
  }
  await admin.del(keys.stepBlocks(thread));
  await admin.hdel(keys.head(thread), 'b');
}

/**
 * Rewrites what layout 7 stored for `thread` as layout 5 stored it: as layout 6 did (`rewindToLayout6`), and
 * each step's packed field `N` as its six fields (`N:r`, `N:t`, `N:m` with every field written out, `N:p`,
 * `N:s` for a small state, `N:f` for refs), and the head with the `ts` and `m` of its step. For tests of
 * reading and moving stores written before layout 6.
 */
export async function rewindToLayout5(
  admin: Redis | Cluster,
  keys: KeyLayout,
  thread: string,
): Promise<void> {
  await rewindToLayout6(admin, keys, thread);
  const cp = keys.checkpoints(thread);
  const fields = await admin.hgetall(cp);
  const metaOf = new Map<string, string>();
  for (const [step, packed] of Object.entries(fields)) {
    if (!/^\d+$/.test(step)) continue;
    const headEnd = packed.indexOf('\n');
    const metaEnd = packed.indexOf('\n', headEnd + 1);
    const [revision, t, kind, length, refs] = packed.slice(0, headEnd).split(' ') as [
      string,
      string,
      string,
      string,
      string,
    ];
    const parsed = JSON.parse(packed.slice(headEnd + 1, metaEnd)) as Record<string, unknown>;
    const meta = JSON.stringify({
      ts: parsed.ts ?? new Date(Number(t)).toISOString(),
      next: parsed.next,
      interrupted: parsed.interrupted ?? false,
      interruptNode: parsed.interruptNode ?? null,
      error: parsed.error ?? null,
      meta: parsed.meta ?? '{}',
    });
    metaOf.set(step, meta);
    const payloadEnd = metaEnd + 1 + Number(length);
    const old: Record<string, string> = {
      [`${step}:r`]: revision,
      [`${step}:t`]: t,
      [`${step}:m`]: meta,
      [`${step}:p`]: packed.slice(metaEnd + 1, payloadEnd),
    };
    if (kind === 's') old[`${step}:s`] = packed.slice(payloadEnd);
    if (refs !== '') old[`${step}:f`] = refs;
    await admin.hdel(cp, step);
    await admin.hset(cp, old);
  }
  const head = keys.head(thread);
  const step = await admin.hget(head, 'step');
  const meta = step === null ? undefined : metaOf.get(step);
  if (meta !== undefined) {
    await admin.hset(head, { ts: (JSON.parse(meta) as { ts: string }).ts, m: meta });
  }
}
