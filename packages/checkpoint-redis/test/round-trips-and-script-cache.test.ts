import { Checkpoint } from '@flow/core';
import { describe, expect, it } from 'vitest';
import { READ_LATEST, SCRIPTS } from '../src/scripts.js';
import { ProbeCheckpointer } from './support/probe-checkpointer.js';
import { plainClient, redisUrl } from './support/stores.js';
import { watched } from './support/watched.js';

const big = 'x'.repeat(100_000);
const at = (thread: string, step: number, next = ['n']) =>
  new Checkpoint({ thread, step, state: { big }, next });

describe('round trips (counted with MONITOR)', () => {
  // Whole states (as stores wrote before chunks, and still do for `stateStorage: 'whole'`), so a large state
  // takes the staged path; chunks below.
  const { prefix, cp, during } = watched({ stateStorage: 'whole' });

  // A large state (these are 100 KB) travels by SET, not as a script argument (Redis copies those into Lua:
  // keys.ts), in the same MULTI as the script: one request, and nothing runs between the two.
  it.each([
    ['an unconditional put', () => cp.put(at('t', 0))],
    ['a conditional put', () => cp.put(at('t', 1), { ifRevision: 0 })],
    ['a conflicting put', () => cp.put(at('t', 1), { ifRevision: 0 }).catch(() => undefined)],
  ])('%s is one MULTI: SET of the state, then EVALSHA', async (_, op) => {
    const { sent } = await during(op);
    expect(sent.map((s) => s.args[0])).toEqual(['multi', 'set', 'evalsha', 'exec']);
    expect(sent[1]?.args[1]).toBe(`${prefix}:in|t`);
  });

  it('a conflicting put leaves no staged state behind', async () => {
    await cp.put(at('w', 0));
    await expect(cp.put(at('w', 0), { ifRevision: 0 })).rejects.toMatchObject({
      code: 'CHECKPOINT_CONFLICT',
    });
    expect(await plainClient().exists(`${prefix}:in|w`)).toBe(0);
    expect(await plainClient().exists(`${prefix}:st|0|w`)).toBe(1);
  });

  it('a put of a small state is one EVALSHA, the state its argument', async () => {
    const { sent } = await during(() => cp.put(new Checkpoint({ thread: 's', step: 0, state: { n: 1 } })));
    expect(sent.map((s) => s.args[0])).toEqual(['evalsha']);
  });

  it.each([
    ['get (latest)', () => cp.get('t')],
    ['get (a step)', () => cp.get('t', 0)],
    ['list', () => cp.list('t', { beforeStep: 5, limit: 10 })],
    ['prune', () => cp.prune('t', { beforeStep: 1 })],
    ['deleteThread', () => cp.deleteThread('t')],
    [
      'a put of a small state with writes',
      () =>
        cp.put(new Checkpoint({ thread: 'w', step: 0, state: { n: 1 } }), {
          writes: [
            { node: 'a', key: 'k', value: 1 },
            { node: 'b', key: 'k', value: big },
          ],
        }),
    ],
    [
      'putWrites of a batch',
      () =>
        cp.putWrites(
          'w',
          1,
          [1, 2, 3].map((n) => ({ node: `n${n}`, key: 'k', value: n })),
        ),
    ],
    ['getWrites', () => cp.getWrites('w', 1)],
    ['acquireLease', () => cp.acquireLease('w', { owner: 'o', ttlMs: 60_000 })],
    ['acquireLease held by another', () => cp.acquireLease('w', { owner: 'other', ttlMs: 60_000 })],
    ['renewLease', () => cp.renewLease('w', { owner: 'o', ttlMs: 60_000 })],
    ['getLease', () => cp.getLease('w')],
    ['releaseLease', () => cp.releaseLease('w', 'o')],
  ])('%s is one EVALSHA', async (_, op) => {
    const { sent } = await during(op);
    expect(sent.map((s) => s.args[0])).toEqual(['evalsha']);
  });

  // ioredis spends CPU on every argument of a call: the latest step needs three keys and two arguments.
  it('get of the latest step calls READ_LATEST with its three keys and two arguments, and reads what list does', async () => {
    const { sent } = await during(() => cp.get('t'));
    expect(sent.map((s) => s.args)).toEqual([
      [
        'evalsha',
        READ_LATEST.sha,
        '3',
        `${prefix}:cp|t`,
        `${prefix}:ch|t`,
        `${prefix}:head|t`,
        `${prefix}:st|`,
        't',
      ],
    ]);
    expect((await cp.get('t'))?.toJSON()).toEqual((await cp.list('t', { limit: 1 }))[0]?.toJSON());
  });

  it('a put checks the revision, writes, and updates summary and index inside that one call', async () => {
    const { sent, lua } = await during(() => cp.put(at('u', 0, [])));
    expect(sent.filter((s) => s.args[0] === 'evalsha')).toHaveLength(1);
    expect(lua.map((s) => String(s.args[0]).toLowerCase())).toEqual(
      expect.arrayContaining(['hmget', 'hset', 'rename', 'zadd']),
    );
    expect(lua.find((s) => String(s.args[0]).toLowerCase() === 'rename')?.args.slice(1)).toEqual([
      `${prefix}:in|u`,
      `${prefix}:st|0|u`,
    ]);
    expect(lua.some((s) => s.args[1] === `${prefix}:idx|done`)).toBe(true);
    expect(lua.some((s) => s.args[1] === `${prefix}:head|u`)).toBe(true);
  });

  it('a put of a large state with writes is still one MULTI: SET of the state, then EVALSHA', async () => {
    const writes = [{ node: 'a', key: 'k', value: 1 }];
    const { sent } = await during(() => cp.put(at('x', 0), { writes }));
    expect(sent.map((s) => s.args[0])).toEqual(['multi', 'set', 'evalsha', 'exec']);
    expect(await cp.getWrites('x', 0)).toEqual(writes);
  });

  it('listThreads is one ZRANGEBYLEX of an index, which holds each thread summary: no script, no other key', async () => {
    await cp.put(at('v', 0));
    for (const [opts, key] of [
      [{}, `${prefix}:idx|all`],
      [{ status: 'running', limit: 10, after: 'a' }, `${prefix}:idx|running`],
    ] as const) {
      const { sent } = await during(() => cp.listThreads(opts));
      expect(sent.map((s) => [s.args[0], s.args[1]])).toEqual([['zrangebylex', key]]);
    }
  });
});

describe('round trips of chunks (counted with MONITOR)', () => {
  const { prefix, cp, during } = watched({ stateStorage: 'linear' });
  // 60 parts of 2 KB: far over the inline limit all together, so they travel like a large state.
  const parts = (tag: string) =>
    Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`p${i}`, `${tag} ${i} `.repeat(400)]));

  it('a put whose new chunks are large is one MULTI: HSETNX of each chunk, then EVALSHA', async () => {
    // The thread's first put is whole (it has nothing to share); the next one stores every part as a chunk.
    await cp.put(new Checkpoint({ thread: 'c', step: 0, state: parts('a') }));
    const next = { ...parts('a'), p0: 'changed' };
    const { sent } = await during(() => cp.put(new Checkpoint({ thread: 'c', step: 1, state: next })));
    const commands = sent.map((s) => s.args[0]);
    expect(commands[0]).toBe('multi');
    expect(commands.slice(-2)).toEqual(['evalsha', 'exec']);
    const staged = sent.filter((s) => s.args[0] === 'hsetnx');
    expect(staged.length).toBeGreaterThan(1);
    expect(staged.length).toBe(commands.length - 3);
    expect(new Set(staged.map((s) => s.args[1]))).toEqual(new Set([`${prefix}:ch|c`]));
    expect((await cp.get('c'))?.state).toEqual(next);
  });

  it('a put whose new chunks are small sends them as arguments of its one EVALSHA', async () => {
    const next = { ...parts('a'), p0: 'changed', p1: 'changed too' };
    const { sent } = await during(() => cp.put(new Checkpoint({ thread: 'c', step: 2, state: next })));
    expect(sent.map((s) => s.args[0])).toEqual(['evalsha']);
    expect((await cp.get('c'))?.state).toEqual(next);
  });

  it('a conflicting put with large new chunks leaves none of them behind', async () => {
    // Half the parts shared with the last put, half new: 60 KB of new chunks, HSETNX'd in the MULTI.
    const fresh = parts('b');
    const halfNew = { ...parts('a'), ...Object.fromEntries(Object.entries(fresh).slice(0, 30)) };
    const admin = plainClient();
    const before = await admin.hlen(`${prefix}:ch|c`);
    await expect(
      cp.put(new Checkpoint({ thread: 'c', step: 2, state: halfNew }), { ifRevision: 0 }),
    ).rejects.toMatchObject({ code: 'CHECKPOINT_CONFLICT' });
    expect(await admin.hlen(`${prefix}:ch|c`)).toBe(before);
  });
});

// In this file, not its own: a SCRIPT FLUSH running in parallel would blur the counts above.
describe('script cache', () => {
  const { prefix, cp, during } = watched({ stateStorage: 'whole' });

  it('survives SCRIPT FLUSH: NOSCRIPT falls back to EVAL once, then EVALSHA again', async () => {
    await cp.put(at('t', 0));
    await plainClient().script('FLUSH');
    const first = await during(() => cp.put(at('t', 1), { ifRevision: 0 }));
    expect(first.sent.map((s) => s.args[0])).toEqual([
      ...['multi', 'set', 'evalsha', 'exec'],
      ...['multi', 'set', 'eval', 'exec'],
    ]);
    const second = await during(() => cp.put(at('t', 2), { ifRevision: 0 }));
    expect(second.sent.map((s) => s.args[0])).toEqual(['multi', 'set', 'evalsha', 'exec']);
    expect((await cp.list('t')).map((c) => [c.step, c.revision])).toEqual([
      [2, 1],
      [1, 1],
      [0, 1],
    ]);
  });

  it('runs every operation after a flush', async () => {
    await cp.put(at('u', 0));
    await cp.put(at('u', 1));
    await plainClient().script('FLUSH');
    expect((await cp.get('u'))?.step).toBe(1);
    await plainClient().script('FLUSH');
    expect(await cp.list('u')).toHaveLength(2);
    await plainClient().script('FLUSH');
    expect((await cp.listThreads()).map((t) => t.thread)).toContain('u');
    await plainClient().script('FLUSH');
    expect(await cp.prune('u', { beforeStep: 1 })).toBe(1);
    await plainClient().script('FLUSH');
    expect(await cp.deleteThread('u')).toBe(1);
  });

  it('a fresh instance loads its scripts in setup() and then calls them by SHA', async () => {
    await plainClient().script('FLUSH');
    const other = new ProbeCheckpointer(redisUrl, { prefix });
    try {
      await other.setup();
      const shas = (await other.connection.script('EXISTS', ...SCRIPTS.map((s) => s.sha))) as number[];
      expect(shas.every((x) => x === 1)).toBe(true);
    } finally {
      await other.close();
    }
  });
});
