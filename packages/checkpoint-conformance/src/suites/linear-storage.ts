import { Checkpoint, type Checkpointer } from '@flow/core';
import { expect, it } from 'vitest';
import { type ConformanceSuite, describerFor } from '../define-suite.js';

/** A ~200-byte chat message, distinct per index (and per `tag`). */
function message(i: number, tag = 'm'): { role: string; content: string } {
  const words = `${tag}${i} the quick brown fox jumps over the lazy dog `.repeat(5);
  return { role: i % 2 === 0 ? 'user' : 'tool', content: words.slice(0, 170) };
}

function messages(count: number, from = 0, tag = 'm'): { role: string; content: string }[] {
  return Array.from({ length: count }, (_, i) => message(from + i, tag));
}

/** Values JSON cannot hold, large enough to be stored as chunks. */
function odd(i: number) {
  return {
    when: new Date(Date.UTC(2024, 0, 1, 0, 0, i)),
    big: 2n ** 70n + BigInt(i),
    bytes: new Uint8Array([i % 256, 0, 255]),
    map: new Map<unknown, unknown>([
      [i, 'x'.repeat(60)],
      ['nested', new Set([i, 'y'.repeat(60)])],
    ]),
    nothing: undefined,
    $flow: 'a user key named like the tag',
  };
}

/**
 * A thread's states, each step changing a part of the previous one in another way: appends, removals,
 * replaced keys, nested edits, type changes, a list shrinking, a Map and a Set gaining and changing entries,
 * values JSON cannot hold, and states crossing
 * the small/large line (about 2 KB of JSON) both ways. Every one must read back exactly.
 */
export function linearStates(): unknown[] {
  const base = messages(30);
  const states: unknown[] = [];
  for (let n = 0; n <= 30; n += 3) states.push({ messages: base.slice(0, n), title: 'chat' }); // growing from small
  const s = (x: unknown) => states.push(x);
  s({ messages: [...base, message(30)], title: 'chat', notes: { a: 1 } }); // append, new key
  s({ messages: [...base, message(30), message(31)], title: 'renamed', notes: { a: 2 } }); // replaced keys
  s({ messages: [...base.slice(0, 7), ...base.slice(8), message(30)], title: 'renamed' }); // removal, key removed
  s({ messages: base.slice(4), title: 'renamed' }); // removal at the front
  s({ messages: base.slice(0, 14), title: 'renamed' }); // a list shrinking
  s({ messages: base.map((m, i) => (i === 20 ? { ...m, content: 'edited in place' } : m)) }); // nested edit
  s({ messages: Object.fromEntries(base.map((m, i) => [`k${i}`, m])) }); // list becomes an object
  s({ messages: Object.fromEntries([...base, message(30)].map((m, i) => [`k${i}`, m])) }); // key added
  s({ messages: 'z'.repeat(6000) }); // object becomes a long string
  const log = base.map((m) => JSON.stringify(m)).join('\n');
  s({ messages: base, log }); // a long string beside a list
  s({ messages: base, log: `${log}\nappended` }); // the string grows
  s({ messages: base, log: `${log.slice(0, 900)}EDITED${log.slice(906)}\nappended` }); // edited in the middle
  s({ messages: base, log: `${'a'.repeat(511)}😀${log}😀😀` }); // emoji across the pieces' edges
  s({ messages: base, log: log.slice(0, 3000) }); // shrinking
  s({ messages: base, deep: { a: { b: { list: messages(15, 100) } } } }); // nested large part
  s({ messages: base, deep: { a: { b: { list: messages(16, 100) } } } }); // nested append
  s({ messages: base, odd: Array.from({ length: 12 }, (_, i) => odd(i)) }); // Map/Set/Date/bytes/BigInt
  s({ messages: base, odd: Array.from({ length: 13 }, (_, i) => odd(i)) });
  s({ messages: base, keyed: new Map(messages(30).map((m, i) => [i, m])) }); // a large Map
  s({ messages: base, keyed: new Map(messages(31).map((m, i) => [i, m])) }); // an entry added to it
  s({ messages: base, keyed: new Map(messages(31).map((m, i) => [i, i === 3 ? 'replaced' : m])) }); // one replaced
  s({ messages: base, keyed: new Map(messages(31).map((m, i) => [30 - i, m])) }); // its order changed
  s({ messages: base, keyed: new Set(messages(31)) }); // a Map becomes a large Set
  s({ messages: base, keyed: new Set([...messages(31), odd(1)]) }); // an item added to it
  s([...base]); // a list at the root
  s([...base, message(30)]);
  s({ n: 1 }); // large to small
  s({ messages: [...base, message(31)], title: 'back' }); // small to large
  return states;
}

async function putAll(cp: Checkpointer, thread: string, states: readonly unknown[], from = 0): Promise<void> {
  for (const [i, state] of states.entries()) {
    await cp.put(new Checkpoint({ thread, step: from + i, state }));
  }
}

/** Every step of `thread` reads as `states` (step = index + from): by get, by list, and latest. */
async function expectExact(cp: Checkpointer, thread: string, states: readonly unknown[], from = 0) {
  for (const [i, state] of states.entries()) {
    expect((await cp.get(thread, from + i))?.state, `get step ${from + i}`).toEqual(state);
  }
  const listed = await cp.list(thread);
  const byStep = new Map(listed.map((c) => [c.step, c.state]));
  for (const [i, state] of states.entries())
    expect(byStep.get(from + i), `list step ${from + i}`).toEqual(state);
  expect((await cp.get(thread))?.state).toEqual(states.at(-1));
}

/**
 * Linear storage: a state that shares parts with the thread's earlier states is stored as chunks; every read
 * stays exact through appends and every other change, old-format records, prune, deleteThread and races.
 * A backend that has not opted into chunks passes by storing whole states.
 */
export const linearStorageSuite: ConformanceSuite = {
  title: 'linear storage',
  define(kit) {
    it('every step reads exactly through every kind of change: get, list, and a reopened instance', async () => {
      const cp = await kit.create();
      const states = linearStates();
      await putAll(cp, 't', states);
      await expectExact(cp, 't', states);
      if (kit.reopen) await expectExact(await kit.reopen(cp), 't', states);
    });

    it('a reopened instance continues a thread, and each instance reads the other’s steps exactly', async () => {
      const cp = await kit.create();
      const states = Array.from({ length: 40 }, (_, n) => ({ messages: messages(n + 10) }));
      await putAll(cp, 't', states.slice(0, 20));
      const other = kit.reopen ? await kit.reopen(cp) : cp;
      await putAll(other, 't', states.slice(20, 30), 20);
      await putAll(cp, 't', states.slice(30), 30);
      await expectExact(cp, 't', states);
      await expectExact(other, 't', states);
    });

    if (kit.reopenWith) {
      const reopenWith = kit.reopenWith;
      it('old-format (whole) records read and mix with linear ones in one thread', async () => {
        const cp = await kit.create();
        const whole = await reopenWith(cp, { stateStorage: 'whole' });
        const states = Array.from({ length: 30 }, (_, n) => ({ messages: messages(n + 12), n }));
        await putAll(whole, 't', states.slice(0, 10));
        await putAll(cp, 't', states.slice(10, 20), 10);
        await putAll(whole, 't', states.slice(20, 25), 20);
        await putAll(cp, 't', states.slice(25), 25);
        await expectExact(cp, 't', states);
        await expectExact(whole, 't', states);
      });
    } else {
      it('old-format records: not declared by harness (no reopenWith), so mixing them is not checked', () => {
        expect(kit.reopenWith).toBeUndefined();
      });
    }

    it('an overwritten step reads its last state; two threads with the same states stay apart', async () => {
      const cp = await kit.create();
      const states = Array.from({ length: 12 }, (_, n) => ({ messages: messages(n + 15) }));
      await putAll(cp, 'a', states);
      await putAll(cp, 'b', states);
      const again = { messages: [...messages(20), message(0, 'other')] };
      await cp.put(new Checkpoint({ thread: 'a', step: 5, state: again }));
      await cp.put(new Checkpoint({ thread: 'a', step: 12, state: again }));
      await expectExact(cp, 'a', [...states.slice(0, 5), again, ...states.slice(6), again]);
      expect(await cp.deleteThread('a')).toBe(13);
      await expectExact(cp, 'b', states);
    });

    it('prune keeps every remaining read exact, also for puts after it', async () => {
      const cp = await kit.create();
      const states = Array.from({ length: 40 }, (_, n) => ({ messages: messages(n + 10) }));
      await putAll(cp, 't', states);
      expect(await cp.prune('t', { beforeStep: 25 })).toBe(25);
      const more = Array.from({ length: 5 }, (_, n) => ({ messages: messages(n + 50) }));
      await putAll(cp, 't', more, 40);
      await expectExact(cp, 't', [...states.slice(25), ...more], 25);
      expect(await cp.prune('t', { beforeStep: 44 })).toBe(19);
      await expectExact(cp, 't', more.slice(4), 44);
      if (kit.reopen) await expectExact(await kit.reopen(cp), 't', more.slice(4), 44);
    });

    it('a put that shares chunks a prune removed writes them again and reads exactly', async () => {
      const cp = await kit.create();
      const long = { messages: messages(40) };
      const longer = { messages: messages(41) };
      await putAll(cp, 't', [long, longer], 10);
      // Step 3 shares step 11's first chunks and adds its own; pruning it leaves those unreferenced.
      const short = { messages: [...messages(30), message(0, 'only-step-3')] };
      await cp.put(new Checkpoint({ thread: 't', step: 3, state: short }));
      expect(await cp.prune('t', { beforeStep: 5 })).toBe(1);
      // This instance last wrote step 3: its next put references step 3's chunks, which are gone.
      const next = { messages: [...short.messages, message(1, 'step-12')] };
      await cp.put(new Checkpoint({ thread: 't', step: 12, state: next }));
      await expectExact(cp, 't', [long, longer, next], 10);
      if (kit.reopen) await expectExact(await kit.reopen(cp), 't', [long, longer, next], 10);
    });

    if (kit.reopen) {
      const reopen = kit.reopen;
      it('a put after another instance deleted the thread stores every chunk again and reads exactly', async () => {
        const cp = await kit.create();
        const states = Array.from({ length: 10 }, (_, n) => ({ messages: messages(n + 20) }));
        await putAll(cp, 't', states);
        const other = await reopen(cp);
        expect(await other.deleteThread('t')).toBe(10);
        const after = { messages: [...messages(29), message(0, 'after')] };
        await cp.put(new Checkpoint({ thread: 't', step: 10, state: after }));
        expect((await other.list('t')).map((c) => c.step)).toEqual([10]);
        expect((await other.get('t', 10))?.state).toEqual(after);
        expect((await cp.get('t'))?.state).toEqual(after);
      });
    }

    it('concurrent conditional puts of large states: exactly one wins and reads exactly', async () => {
      const cp = await kit.create();
      await putAll(cp, 't', [{ messages: messages(30) }]);
      const states = Array.from({ length: kit.raceWidth }, (_, i) => ({
        messages: [...messages(30), message(i, 'racer')],
      }));
      const results = await Promise.allSettled(
        states.map((state) => cp.put(new Checkpoint({ thread: 't', step: 1, state }), { ifRevision: 0 })),
      );
      const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
      expect(won).toHaveLength(1);
      for (const r of results) {
        if (r.status === 'rejected') expect((r.reason as { code?: string }).code).toBe('CHECKPOINT_CONFLICT');
      }
      expect((await cp.get('t', 1))?.state).toEqual(states[won[0]!]);
      const next = { messages: [...states[won[0]!]!.messages, message(1, 'next')] };
      await cp.put(new Checkpoint({ thread: 't', step: 2, state: next }));
      expect((await cp.get('t'))?.state).toEqual(next);
    });

    if (kit.countChunks) {
      const countChunks = kit.countChunks;
      it('a large state is stored as chunks, a small one whole; deleteThread leaves no chunk', async () => {
        const cp = await kit.create();
        await cp.put(new Checkpoint({ thread: 'small', step: 0, state: { n: 1 } }));
        expect(await countChunks(cp, 'small'), 'countChunks of a thread whose one state is small').toBe(0);
        await putAll(cp, 't', [{ messages: messages(30) }, { messages: messages(31) }]);
        await putAll(cp, 'u', [{ messages: messages(30) }]);
        expect(
          await countChunks(cp, 't'),
          'countChunks after two large states that share a head (does the write store `chunks`?)',
        ).toBeGreaterThan(0);
        const u = await countChunks(cp, 'u');
        await cp.deleteThread('t');
        expect(
          await countChunks(cp, 't'),
          'countChunks after deleteThread (it must remove every chunk)',
        ).toBe(0);
        expect(await countChunks(cp, 'u'), "countChunks of another thread after deleteThread('t')").toBe(u);
        expect((await cp.get('u'))?.state).toEqual({ messages: messages(30) });
      });

      it('prune removes the chunks no remaining record references, and keeps the others', async () => {
        const cp = await kit.create();
        const first = Array.from({ length: 20 }, (_, n) => ({ messages: messages(n + 12, 0, 'first') }));
        const second = Array.from({ length: 20 }, (_, n) => ({ messages: messages(n + 12, 0, 'second') }));
        await putAll(cp, 't', first);
        const ofFirst = await countChunks(cp, 't');
        await putAll(cp, 't', second, 20);
        const total = await countChunks(cp, 't');
        // Steps 0-19 hold only `first` messages, which no later step shares.
        expect(await cp.prune('t', { beforeStep: 20 })).toBe(20);
        expect(
          await countChunks(cp, 't'),
          `countChunks after a prune that removed the only records referencing ${ofFirst} of ${total} chunks ` +
            '(prune must remove every chunk no remaining record references, and keep the others)',
        ).toBe(total - ofFirst);
        await expectExact(cp, 't', second, 20);
        expect(await cp.prune('t', { beforeStep: 39 })).toBe(19);
        expect(
          await countChunks(cp, 't'),
          'countChunks after pruning all but the latest (prune must remove the chunks no remaining record references)',
        ).toBeLessThan(total - ofFirst);
        await expectExact(cp, 't', second.slice(19), 39);
      });

      it('a prune that removes no checkpoint still drops the chunks of overwritten steps (a rekey rewrites every step)', async () => {
        const cp = await kit.create();
        const first = Array.from({ length: 12 }, (_, n) => ({ messages: messages(n + 12, 0, 'first') }));
        const second = Array.from({ length: 12 }, (_, n) => ({ messages: messages(n + 12, 0, 'second') }));
        await putAll(cp, 't', first);
        // Unconditional puts over every step: nothing references the chunks of `first` any more.
        await putAll(cp, 't', second);
        const before = await countChunks(cp, 't');
        await putAll(cp, 'fresh', second);
        const fresh = await countChunks(cp, 'fresh');
        expect(await cp.prune('t', { beforeStep: 0 })).toBe(0);
        const after = await countChunks(cp, 't');
        const rule =
          'prune must remove the chunks no remaining record references even when it removes no checkpoint';
        expect(
          after,
          `countChunks after every step was overwritten and prune({ beforeStep: 0 }): ${rule}`,
        ).toBeLessThan(before);
        expect(
          after,
          `countChunks, against a thread that only ever held the new states (${fresh}): ${rule}`,
        ).toBeLessThanOrEqual(fresh);
        await expectExact(cp, 't', second);
      });
    } else {
      it('chunk clean-up: not declared by harness (no countChunks), so prune and deleteThread leaving no chunk are not checked', () => {
        expect(kit.countChunks).toBeUndefined();
      });
    }
  },
};

export const describeLinearStorage = describerFor(linearStorageSuite);
