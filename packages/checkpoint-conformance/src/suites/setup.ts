import { expect, it } from 'vitest';
import { checkpoint } from '../builders.js';
import { type ConformanceSuite, describerFor } from '../define-suite.js';

/** Setup: idempotent, safe when called concurrently, optional because every method runs it lazily. */
export const setupSuite: ConformanceSuite = {
  title: 'setup',
  define(kit) {
    // A harness whose create() shares storage makes dozens of other tests fail in ways that name no rule.
    it('harness: create() hands out fresh, empty storage every time', async () => {
      const first = await kit.create();
      await first.put(checkpoint('harness-fresh', 0));
      const second = await kit.create();
      expect(
        (await second.listThreads()).map((t) => t.thread),
        'threads a second create() sees after the first stored "harness-fresh": the harness’s create() must ' +
          'hand out fresh, empty storage every time (its own directory, database file, schema or key prefix), ' +
          'or every other test sees the data of the tests before it',
      ).toEqual([]);
    });

    it('setup() is idempotent: calling it again keeps what is stored', async () => {
      const cp = await kit.create();
      await cp.setup();
      await cp.put(checkpoint('t', 0, { state: 'kept' }));
      await cp.setup();
      await cp.setup();
      expect((await cp.get('t'))?.state).toBe('kept');
    });

    it('concurrent setup() calls on one instance all resolve', async () => {
      const cp = await kit.create();
      await Promise.all([cp.setup(), cp.setup(), cp.setup(), cp.setup(), cp.setup()]);
      await cp.put(checkpoint('t', 0));
      expect((await cp.get('t'))?.revision).toBe(1);
    });

    const reopen = kit.reopen;
    it(
      reopen
        ? 'concurrent setup() calls on two instances of the same storage all resolve'
        : 'concurrent setup() calls on two fresh instances all resolve (no reopen declared: separate storage)',
      async () => {
        const a = await kit.create();
        const b = reopen ? await reopen(a) : await kit.create();
        await Promise.all([a.setup(), b.setup(), a.setup(), b.setup()]);
        await a.put(checkpoint('t', 0, { state: 'from a' }));
        await b.put(checkpoint('u', 0, { state: 'from b' }));
        expect((await b.get('u'))?.state).toBe('from b');
        if (reopen) expect((await b.get('t'))?.state).toBe('from a');
      },
    );

    it('every method works without setup(), even as concurrent first calls', async () => {
      const reader = await kit.create();
      const first = await Promise.all([
        reader.get('t'),
        reader.list('t'),
        reader.listThreads(),
        reader.deleteThread('t'),
        reader.prune('t', { beforeStep: 1 }),
      ]);
      expect(first).toEqual([undefined, [], [], 0, 0]);
      const writer = await kit.create();
      const stored = await writer.put(checkpoint('t', 0));
      expect(stored.revision).toBe(1);
      expect((await writer.get('t'))?.revision).toBe(1);
    });
  },
};

/** Runs only the setup checks: `describeSetup('mine', harness)`. */
export const describeSetup = describerFor(setupSuite);
