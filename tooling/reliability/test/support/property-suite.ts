import { callsWithThreadId, expectFlowError } from '@flow/checkpoint-conformance';
import { Checkpoint, type Checkpointer, MAX_STEP } from '@flow/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collidingIds, invalidId, state, unserializableState, validId } from './arbitraries.js';
import { count } from './figures.js';
import { type BackendName, freshStore, type Store } from './stores.js';

/** Runs per property, per backend: more where a put is cheap, fewer where it is an fsync. */
const RUNS: Record<BackendName, number> = { memory: 300, sqlite: 200, redis: 200, postgres: 150, file: 100 };

/** Thread ids in code-point (UTF-8 byte) order, computed without @flow/core. */
function codePointOrder(ids: Iterable<string>): string[] {
  return [...ids].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/** Everything `listThreads` says, plus every thread's full history: the store as a caller can see it. */
async function snapshot(cp: Checkpointer): Promise<unknown> {
  const threads = await cp.listThreads();
  return { threads, histories: await Promise.all(threads.map((t) => cp.list(t.thread))) };
}

/** A short, safe description of any value for a failure message. */
function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 20 ? `${value.slice(0, 20)}…` : value);
  if (typeof value === 'bigint') return `${value}n`;
  return value === null || typeof value !== 'object'
    ? String(value)
    : Array.isArray(value)
      ? 'an array'
      : 'an object';
}

/** Property-based round trips and rejections against one backend (fast-check, real storage). */
export function describeProperties(backend: BackendName): void {
  describe(`${backend}: property-based input`, () => {
    const runs = RUNS[backend];
    let store: Store;
    let cp: Checkpointer;
    /** A second instance on the same storage: what comes back was read from storage, not from a cache. */
    let reader: Checkpointer;
    beforeAll(async () => {
      store = freshStore(backend);
      cp = store.open();
      reader = store.open();
      await cp.setup();
    });
    afterAll(() => store.remove());

    it(`any valid thread id, state and interrupt payload round-trips exactly (${runs} runs)`, async () => {
      const ids = new Set<string>();
      await fc.assert(
        fc.asyncProperty(
          validId,
          state,
          state,
          fc.integer({ min: 0, max: MAX_STEP }),
          fc.boolean(),
          async (thread, value, payload, step, interrupted) => {
            const written = await cp.put(
              new Checkpoint({
                thread,
                step,
                state: value,
                next: interrupted ? ['ask'] : [],
                interrupted,
                interruptNode: interrupted ? 'ask' : null,
                interruptPayload: payload,
              }),
            );
            ids.add(thread);
            const read = await reader.get(thread, step);
            expect(read?.thread).toBe(thread);
            expect(read?.step).toBe(step);
            expect(read?.state).toEqual(value);
            expect(read?.interruptPayload).toEqual(payload === undefined ? null : payload);
            expect({ interrupted: read?.interrupted, next: read?.next, revision: read?.revision }).toEqual({
              interrupted,
              next: interrupted ? ['ask'] : [],
              revision: written.revision,
            });
            expect((await reader.list(thread)).some((c) => c.step === step)).toBe(true);
          },
        ),
        { numRuns: runs },
      );
      expect((await reader.listThreads()).map((i) => i.thread)).toEqual(codePointOrder(ids));
      count(`properties: ${backend}`, 'inputs tried', runs);
    });

    it(`invalid thread ids are rejected by every method with InvalidArgumentError, and nothing changes (${runs} runs)`, async () => {
      const before = await snapshot(cp);
      await fc.assert(
        fc.asyncProperty(invalidId, async (id) => {
          for (const [what, call] of callsWithThreadId(cp, id)) {
            await expectFlowError(call, 'INVALID_ARGUMENT', `${what}(${show(id)})`);
          }
        }),
        { numRuns: runs },
      );
      expect(await snapshot(cp)).toEqual(before);
      count(`properties: ${backend}`, 'inputs tried', runs);
    });

    it(`a state or payload holding a function, symbol, cycle or unsupported object is a SerializationError, and nothing changes (${runs} runs)`, async () => {
      const before = await snapshot(cp);
      const thread = (await cp.listThreads({ limit: 1 }))[0]?.thread ?? 'some thread';
      await fc.assert(
        fc.asyncProperty(
          unserializableState,
          fc.boolean(),
          fc.boolean(),
          async (bad, inPayload, existing) => {
            const target = existing ? thread : `new ${thread}`;
            const cpToPut = new Checkpoint({
              thread: target,
              step: 0,
              state: inPayload ? 'fine' : bad,
              interrupted: inPayload,
              interruptPayload: inPayload ? bad : null,
            });
            await expectFlowError(() => cp.put(cpToPut), 'SERIALIZATION', 'put(unserializable)');
            await expectFlowError(
              () => cp.put(cpToPut, { ifRevision: 0 }),
              'SERIALIZATION',
              'put(unserializable, 0)',
            );
          },
        ),
        { numRuns: runs },
      );
      expect(await snapshot(cp)).toEqual(before);
      count(`properties: ${backend}`, 'inputs tried', runs);
    });

    it(`invalid steps, ifRevision, ts and listing options are rejected with InvalidArgumentError, and nothing changes (${runs} runs)`, async () => {
      const before = await snapshot(cp);
      // Not a count (ifRevision, limit): negative, fractional, not finite, not a number.
      const badCount = fc.oneof(
        fc.integer({ max: -1 }),
        fc.double({ noInteger: true }),
        fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, '1', null, 1n, {}),
      );
      // Not a step: the same, or past 2^31 - 1. Not a beforeStep bound: past 2^31 (that one means "all").
      const badStep = fc.oneof(badCount, fc.integer({ min: MAX_STEP + 1, max: Number.MAX_SAFE_INTEGER }));
      const badBound = fc.oneof(badCount, fc.integer({ min: MAX_STEP + 2, max: Number.MAX_SAFE_INTEGER }));
      const badTs = fc
        .string({ maxLength: 20 })
        .filter((s) => s !== '' && Number.isNaN(new Date(s).getTime()));
      await fc.assert(
        fc.asyncProperty(
          validId,
          badStep,
          badCount,
          badBound,
          badTs,
          async (thread, bad, badN, bound, ts) => {
            const raw = (fields: object) =>
              ({
                thread,
                step: 0,
                state: 1,
                next: [],
                interrupted: false,
                ...fields,
              }) as unknown as Checkpoint;
            await expectFlowError(() => cp.put(raw({ step: bad })), 'INVALID_ARGUMENT', 'put(step)');
            await expectFlowError(() => cp.put(raw({ ts })), 'INVALID_ARGUMENT', 'put(ts)');
            await expectFlowError(
              () => cp.put(raw({}), { ifRevision: badN as number }),
              'INVALID_ARGUMENT',
              'put(ifRevision)',
            );
            await expectFlowError(() => cp.get(thread, bad as number), 'INVALID_ARGUMENT', 'get(step)');
            await expectFlowError(
              () => cp.list(thread, { limit: badN as number }),
              'INVALID_ARGUMENT',
              'list(limit)',
            );
            await expectFlowError(
              () => cp.listThreads({ limit: badN as number }),
              'INVALID_ARGUMENT',
              'listThreads(limit)',
            );
            await expectFlowError(
              () => cp.prune(thread, { beforeStep: bound as number }),
              'INVALID_ARGUMENT',
              'prune(beforeStep)',
            );
            await expectFlowError(
              () => cp.prune(thread, { olderThan: ts }),
              'INVALID_ARGUMENT',
              'prune(olderThan)',
            );
          },
        ),
        { numRuns: runs },
      );
      expect(await snapshot(cp)).toEqual(before);
      count(`properties: ${backend}`, 'inputs tried', runs);
    });

    it(`ids that naive encoding would fold together (a/b vs a%2Fb, case, normalisation, unsafe characters, long prefixes) stay apart (${runs} runs)`, async () => {
      await fc.assert(
        fc.asyncProperty(collidingIds, async ([a, b]) => {
          await cp.deleteThread(a);
          await cp.deleteThread(b);
          await cp.put(new Checkpoint({ thread: a, step: 0, state: { id: a } }));
          await cp.put(new Checkpoint({ thread: b, step: 0, state: { id: b } }));
          await cp.put(new Checkpoint({ thread: b, step: 1, state: { id: b } }));
          expect((await reader.list(a)).map((c) => c.state)).toEqual([{ id: a }]);
          expect((await reader.list(b)).map((c) => c.state)).toEqual([{ id: b }, { id: b }]);
          expect(await cp.deleteThread(a)).toBe(1);
          expect((await reader.get(b))?.state).toEqual({ id: b });
          expect(await reader.get(a)).toBeUndefined();
          expect(await cp.deleteThread(b)).toBe(2);
        }),
        { numRuns: runs },
      );
      count(`properties: ${backend}`, 'inputs tried', runs);
    });
  });
}
