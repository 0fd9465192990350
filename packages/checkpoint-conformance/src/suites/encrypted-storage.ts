import { randomBytes } from 'node:crypto';
import {
  Checkpoint,
  type Checkpointer,
  ENVELOPE_PREFIX,
  encryptedSerializer,
  jsonSerializer,
  type SerializeContext,
  type Serializer,
} from '@flow/core';
import { afterEach, describe, expect, it } from 'vitest';
import { registerSuite } from '../define-suite.js';
import { expectFlowError } from '../expect-error.js';
import type { CheckpointerHarness } from '../harness.js';
import { serializationSuite } from './serialization.js';

/**
 * What a backend hands `describeEncryptedStorage`: how to open it with a given serializer. `create` must give
 * fresh, empty storage per call; `reopen` a second instance on `cp`'s storage with `serializer`.
 */
export interface SerializerHarness<C extends Checkpointer = Checkpointer> {
  create(serializer: Serializer): Promise<C>;
  reopen?(cp: C, serializer: Serializer): Promise<C>;
  cleanup?(cp: C): Promise<void>;
  timeout?: number;
}

const SECRET = 'the-value-no-store-may-show';

/** A serializer that records the context of every call, around `inner`. */
function recording(inner: Serializer) {
  const calls: { op: 'serialize' | 'deserialize'; ctx: SerializeContext | undefined }[] = [];
  const serializer: Serializer = {
    serialize: (value, ctx) => {
      calls.push({ op: 'serialize', ctx });
      return inner.serialize(value, ctx);
    },
    deserialize: (text, ctx) => {
      calls.push({ op: 'deserialize', ctx });
      return inner.deserialize(text, ctx);
    },
  };
  return { serializer, calls };
}

/**
 * A backend stores a custom serializer's text unchanged and hands it the value's place: the kit's
 * serialization suite and round trips through `encryptedSerializer` (whose envelopes fail if a byte changes or
 * the place is wrong), per-step writes included. Call it beside `describeCheckpointer`.
 *
 * @example
 * describeEncryptedStorage('sqlite', { create: async (serializer) => new SqliteCheckpointer(freshPath(), { serializer }) });
 */
export function describeEncryptedStorage<C extends Checkpointer>(
  name: string,
  harness: SerializerHarness<C>,
): void {
  const keys = { k1: randomBytes(32), k2: randomBytes(32) };
  const encrypted = encryptedSerializer({ keys, current: 'k2' });
  const base = harness as unknown as SerializerHarness;
  const withSerializer = (serializer: Serializer): CheckpointerHarness => ({
    create: () => base.create(serializer),
    ...(base.cleanup === undefined ? {} : { cleanup: base.cleanup }),
    ...(base.timeout === undefined ? {} : { timeout: base.timeout }),
  });

  describe(`${name} with encryptedSerializer`, () => {
    registerSuite(serializationSuite, withSerializer(encrypted));

    describe('encrypted storage', {
      ...(base.timeout === undefined ? {} : { timeout: base.timeout }),
    }, () => {
      // Instances opened with several serializers: closed after each test (reopened first), then cleaned up.
      let created: Checkpointer[] = [];
      let reopened: Checkpointer[] = [];
      afterEach(async () => {
        for (const cp of [...reopened.reverse(), ...created.reverse()]) await cp.close().catch(() => {});
        if (base.cleanup) for (const cp of created) await base.cleanup(cp);
        created = [];
        reopened = [];
      });
      const open = async (serializer: Serializer) => {
        const cp = await base.create(serializer);
        created.push(cp);
        return cp;
      };
      const again = async (cp: Checkpointer, serializer: Serializer) => {
        const other = await base.reopen!(cp, serializer);
        reopened.push(other);
        return other;
      };

      it('round-trips state and interrupt payload, encrypted, on this instance and a reopened one', async () => {
        const cp = await open(encrypted);
        const state = { secret: SECRET, when: new Date(1), big: 10n, tags: new Set(['a']) };
        const payload = { ask: SECRET, options: new Map([['yes', 1]]) };
        await cp.put(new Checkpoint({ thread: 't/1', step: 0, state: { first: true } }));
        await cp.put(
          new Checkpoint({
            thread: 't/1',
            step: 1,
            state,
            next: ['review'],
            interrupted: true,
            interruptNode: 'review',
            interruptPayload: payload,
          }),
        );
        const check = async (store: Checkpointer) => {
          const read = await store.get('t/1', 1);
          expect(read?.state).toEqual(state);
          expect(read?.interruptPayload).toEqual(payload);
          expect((await store.list('t/1')).map((c) => c.step)).toEqual([1, 0]);
        };
        await check(cp);
        if (base.reopen) await check(await again(cp, encrypted));
        // Rotation: a store opened with k1 current reads k2's records and writes its own.
        const rotated = encryptedSerializer({ keys, current: 'k1' });
        if (base.reopen) {
          const other = await again(cp, rotated);
          await check(other);
          await other.put(new Checkpoint({ thread: 't/1', step: 2, state: 'k1' }));
          expect((await cp.get('t/1'))?.state).toBe('k1');
        }
        // Read as plain JSON, the state is the envelope, byte for byte: it still decrypts at its place.
        if (base.reopen) {
          const plain = await again(cp, jsonSerializer);
          const envelope = (await plain.get('t/1', 1))?.state;
          expect(typeof envelope === 'string' && envelope.startsWith(ENVELOPE_PREFIX)).toBe(true);
          expect(envelope).not.toContain(SECRET);
          const place = { thread: 't/1', step: 1, field: 'state' } as const;
          expect(encrypted.deserialize(JSON.stringify(envelope), place)).toEqual(state);
        }
      });

      it('round-trips large states stored as chunks, encrypted, across steps and a key rotation', async () => {
        const cp = await open(encrypted);
        const message = (i: number) => ({ role: 'tool', content: `${SECRET} ${i} ${'output '.repeat(25)}` });
        const states = Array.from({ length: 25 }, (_, n) => ({
          messages: Array.from({ length: n + 10 }, (_, i) => message(i)),
          when: new Date(n),
        }));
        for (const [step, state] of states.entries())
          await cp.put(new Checkpoint({ thread: 'big', step, state }));
        const check = async (store: Checkpointer) => {
          for (const [step, state] of states.entries())
            expect((await store.get('big', step))?.state).toEqual(state);
        };
        await check(cp);
        if (base.reopen) {
          const rotated = await again(cp, encryptedSerializer({ keys, current: 'k1' }));
          await check(rotated);
          const next = { messages: [...states[24]!.messages, message(99)], when: new Date(99) };
          await rotated.put(new Checkpoint({ thread: 'big', step: 25, state: next }));
          expect((await cp.get('big'))?.state).toEqual(next);
          // Without the keys nothing reads, and no error quotes what is stored.
          const plain = await again(cp, jsonSerializer);
          const read = await plain.get('big', 24).then(
            (c) => JSON.stringify(c?.state),
            (error: Error) => error.message,
          );
          expect(read).not.toContain(SECRET);
        }
      });

      it('stores a state whole or as chunks as a plain store does: an envelope is not measured as the state', async () => {
        // How often a put reads the state's one field: once more for each walk over it. A state of 1.7 KB of
        // JSON (an envelope of 2.3 KB) is stored whole with no walk; one of 3 KB is walked for chunks.
        const reads = async (serializer: Serializer, items: number) => {
          const cp = await open(serializer);
          const messages = Array.from({ length: items }, (_, i) => `${'m'.repeat(100)}${i}`);
          let count = 0;
          const state = {
            get messages() {
              count++;
              return messages;
            },
          };
          await cp.put(new Checkpoint({ thread: `size-${items}`, step: 0, state }));
          await cp.put(new Checkpoint({ thread: `size-${items}`, step: 1, state }));
          return count;
        };
        const small = await reads(encrypted, 16);
        expect(small).toBe(await reads(jsonSerializer, 16));
        expect(await reads(encrypted, 28)).toBeGreaterThan(small);
      });

      it('round-trips per-step writes, encrypted, from put and putWrites, on this instance and a reopened one', async () => {
        const cp = await open(encrypted);
        const first = [{ node: 'a', key: 'update', value: { secret: SECRET, at: new Date(2) } }];
        const second = [{ node: 'b', key: 'task:charge', value: 12n }];
        await cp.put(new Checkpoint({ thread: 'w', step: 4, state: 0 }), { writes: first });
        await cp.putWrites('w', 4, second);
        const check = async (store: Checkpointer) =>
          expect(await store.getWrites('w', 4)).toEqual([...first, ...second]);
        await check(cp);
        if (base.reopen) await check(await again(cp, encrypted));
      });

      it("hands the serializer each value's place, on write and on read", async () => {
        const { serializer, calls } = recording(encrypted);
        const cp = await open(serializer);
        await cp.put(new Checkpoint({ thread: 'ctx', step: 3, state: 1 }));
        await cp.get('ctx', 3);
        const seen = calls.map((c) => [c.op, c.ctx]);
        for (const op of ['serialize', 'deserialize'] as const) {
          expect(seen).toContainEqual([op, { thread: 'ctx', step: 3, field: 'state' }]);
          expect(seen).toContainEqual([op, { thread: 'ctx', step: 3, field: 'interruptPayload' }]);
        }
        expect(calls.every((c) => c.ctx !== undefined)).toBe(true);
      });

      it("hands the serializer each write's place, node and key included", async () => {
        const { serializer, calls } = recording(encrypted);
        const cp = await open(serializer);
        await cp.putWrites('ctx', 3, [{ node: 'n', key: 'k', value: 2 }]);
        await cp.getWrites('ctx', 3);
        const place = { thread: 'ctx', step: 3, field: 'write', node: 'n', key: 'k' };
        expect(calls.map((c) => [c.op, c.ctx])).toEqual([
          ['serialize', place],
          ['deserialize', place],
        ]);
      });

      it('a value stored for one thread and read on another fails authentication, naming the record', async () => {
        // A serializer that writes thread "a"'s envelope for thread "b": what a row copied by hand looks like.
        const stolen = encrypted.serialize({ secret: SECRET }, { thread: 'a', step: 0, field: 'state' });
        const replaying: Serializer = {
          serialize: (value, ctx) => (ctx?.field === 'state' ? stolen : encrypted.serialize(value, ctx)),
          deserialize: (text, ctx) => encrypted.deserialize(text, ctx),
        };
        const writer = await open(replaying);
        await writer.put(new Checkpoint({ thread: 'b', step: 0, state: 'ignored' }));
        const error = await expectFlowError(
          () => writer.get('b', 0),
          'CORRUPT_CHECKPOINT',
          'get of a moved record',
        );
        expect(typeof error.location === 'string' && error.location !== '').toBe(true);
        expect(error.message).toContain('authentication failed');
        expect(error.message).not.toContain(SECRET);
      });
    });
  });
}
