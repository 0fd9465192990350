import { Checkpoint, InvalidArgumentError, MAX_STEP } from '@flow/core';
import { expect, it } from 'vitest';
import { checkpoint } from '../builders.js';
import { type ConformanceSuite, describerFor } from '../define-suite.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** put/get round trips: every field, `done`, `ts` stamping and keeping, the returned revision. */
export const putGetSuite: ConformanceSuite = {
  title: 'put/get',
  define(kit) {
    it('round-trips every field of a checkpoint through put, get of its step, get of the latest and list', async () => {
      const cp = await kit.create();
      const input = new Checkpoint({
        thread: 'order-42',
        step: 3,
        state: { log: ['a', 'b'], n: 3, nested: { ok: true, none: null } },
        next: ['review', 'notify'],
        interrupted: true,
        interruptNode: 'review',
        interruptPayload: { question: 'ok?', n: 3 },
        ts: '2024-05-06T07:08:09.123Z',
      });
      const stored = await cp.put(input);
      const reads: Array<[string, Checkpoint | undefined]> = [
        ['put', stored],
        ["get('order-42', 3)", await cp.get('order-42', 3)],
        ["get('order-42') (the latest)", await cp.get('order-42')],
        ["list('order-42')", (await cp.list('order-42'))[0]],
        [
          "list('order-42', { beforeStep: 4, limit: 1 })",
          (await cp.list('order-42', { beforeStep: 4, limit: 1 }))[0],
        ],
      ];
      for (const [via, got] of reads) {
        expect(got, via).toBeDefined();
        // Every read path answers every field: the engine resumes from the latest, time travel reads list.
        expect({ ...got!.toInit() }, `fields read back by ${via}`).toEqual({
          ...input.toInit(),
          revision: 1,
        });
        expect(got!.done, via).toBe(false);
      }
    });

    it('fills the defaults of omitted fields', async () => {
      const cp = await kit.create();
      await cp.put(new Checkpoint({ thread: 't', step: 0, state: 'plain' }));
      const read = await cp.get('t', 0);
      expect(read?.state).toBe('plain');
      expect(read?.next).toEqual([]);
      expect(read?.interrupted).toBe(false);
      expect(read?.interruptNode).toBeNull();
      expect(read?.interruptPayload).toBeNull();
    });

    it('derives done: true only with an empty next and interrupted false', async () => {
      const cp = await kit.create();
      await cp.put(checkpoint('finished', 0));
      await cp.put(checkpoint('running', 0, { next: ['work'] }));
      await cp.put(checkpoint('waiting', 0, { interrupted: true, interruptNode: 'review' }));
      expect((await cp.get('finished'))?.done).toBe(true);
      expect((await cp.get('running'))?.done).toBe(false);
      expect((await cp.get('waiting'))?.done).toBe(false);
    });

    it('stamps the current time as ts when ts is omitted or empty', async () => {
      const cp = await kit.create();
      const before = Date.now();
      const omitted = await cp.put(checkpoint('t', 0));
      const empty = await cp.put(checkpoint('t', 1, { ts: '' }));
      const after = Date.now();
      for (const [step, returned] of [
        [0, omitted],
        [1, empty],
      ] as const) {
        expect(returned.ts).toMatch(ISO);
        // A second of slack either way for backends whose clock is a database server's.
        expect(Date.parse(returned.ts)).toBeGreaterThanOrEqual(before - 1000);
        expect(Date.parse(returned.ts)).toBeLessThanOrEqual(after + 1000);
        expect((await cp.get('t', step))?.ts).toBe(returned.ts);
      }
    });

    it('keeps a given ts, normalised to toISOString() form', async () => {
      const cp = await kit.create();
      const given = await cp.put(checkpoint('t', 0, { ts: '2020-01-02T03:04:05.678Z' }));
      const offset = await cp.put(checkpoint('t', 1, { ts: '2020-01-02T04:04:05.678+01:00' }));
      expect(given.ts).toBe('2020-01-02T03:04:05.678Z');
      expect(offset.ts).toBe('2020-01-02T03:04:05.678Z');
      expect((await cp.get('t', 0))?.ts).toBe('2020-01-02T03:04:05.678Z');
      expect((await cp.get('t', 1))?.ts).toBe('2020-01-02T03:04:05.678Z');
    });

    it('keeps a given ts at the edges of the calendar (29 February of leap years, the last millisecond of a year)', async () => {
      const cp = await kit.create();
      // Each is already in toISOString() form, the shape core accepts without building a Date; the stored form
      // is the same text. (Fields that do not exist, which Date rolls over — 24:00, 29 February of a common
      // year, 31 April — are refused by the Checkpoint constructor, before any backend sees them.)
      const given = [
        '2000-02-29T12:00:00.000Z',
        '2024-02-29T00:00:00.000Z',
        '1600-02-29T23:59:59.999Z',
        '2020-04-30T00:00:00.000Z',
        '2020-12-31T23:59:59.999Z',
      ];
      for (const [step, ts] of given.entries()) {
        expect((await cp.put(checkpoint('t', step, { ts }))).ts, ts).toBe(ts);
        expect((await cp.get('t', step))?.ts, ts).toBe(ts);
      }
      for (const ts of ['2020-01-01T24:00:00.000Z', '2021-02-29T00:00:00.000Z', '1900-02-29T12:00:00.000Z']) {
        expect(() => checkpoint('t', 9, { ts }), ts).toThrow(InvalidArgumentError);
      }
    });

    it('resolves put with the stored revision, ignoring the revision given on input', async () => {
      const cp = await kit.create();
      const first = await cp.put(checkpoint('t', 0, { revision: 99 }));
      expect(first.revision).toBe(1);
      expect((await cp.get('t', 0))?.revision).toBe(1);
      const second = await cp.put(first.with({ state: 'again' }));
      expect(second.revision).toBe(2);
      expect(second.state).toBe('again');
    });

    it('overwrites the same (thread, step) with the newest put', async () => {
      const cp = await kit.create();
      await cp.put(checkpoint('t', 1, { state: 'first', next: ['a'] }));
      await cp.put(checkpoint('t', 1, { state: 'second', next: [] }));
      const read = await cp.get('t', 1);
      expect(read?.state).toBe('second');
      expect(read?.done).toBe(true);
      expect(await cp.list('t')).toHaveLength(1);
    });

    it('stores step 0 and the largest step 2^31 - 1', async () => {
      const cp = await kit.create();
      await cp.put(checkpoint('t', 0));
      await cp.put(checkpoint('t', MAX_STEP));
      expect((await cp.get('t', 0))?.step).toBe(0);
      expect((await cp.get('t', MAX_STEP))?.step).toBe(MAX_STEP);
      expect((await cp.get('t'))?.step).toBe(MAX_STEP);
    });

    it('round-trips non-object states and a large state', async () => {
      const cp = await kit.create();
      const big = { text: 'x'.repeat(200_000), items: Array.from({ length: 1000 }, (_, i) => ({ i })) };
      const states: unknown[] = ['text', 42, null, true, [1, 'two', { three: 3 }], big];
      await Promise.all(states.map((state, step) => cp.put(checkpoint('t', step, { state }))));
      for (const [step, state] of states.entries()) expect((await cp.get('t', step))?.state).toEqual(state);
    });
  },
};

/** Runs only the put/get checks: `describePutGet('mine', harness)`. */
export const describePutGet = describerFor(putGetSuite);
