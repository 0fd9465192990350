import { Checkpoint } from '@flow/core';
import { expect, it } from 'vitest';
import { checkpoint } from '../builders.js';
import { type ConformanceSuite, describerFor } from '../define-suite.js';
import { expectFlowError } from '../expect-error.js';

/** Every kind of value the default serializer must round-trip, each under its own key. */
export function richState(): Record<string, unknown> {
  return {
    date: new Date('2024-02-29T12:34:56.789Z'),
    bigint: 2n ** 100n,
    negativeBigint: -12345678901234567890n,
    map: new Map<unknown, unknown>([
      ['k', 1],
      [2, 'two'],
      [{ obj: 'key' }, [3]],
    ]),
    set: new Set<unknown>(['a', 1, { b: 2 }]),
    bytes: new Uint8Array([0, 1, 127, 128, 255]),
    emptyBytes: new Uint8Array(0),
    nan: Number.NaN,
    infinity: Number.POSITIVE_INFINITY,
    negativeInfinity: Number.NEGATIVE_INFINITY,
    nul: 'before\u0000after',
    onlyNul: '\u0000',
    keyWithNul: { 'a\u0000b': 1 },
    unicode: 'ünïcödé 中文 😀',
    lookalikes: [
      { $flow: 'date', v: '2024-01-01T00:00:00.000Z' },
      { $flow: 'bigint', v: '1' },
      { $flow: 'obj', v: [] },
      { $type: 'Map', value: [] },
      { __type: 'Set', data: [1] },
      { type: 'Buffer', data: [1, 2] },
    ],
    nested: [
      new Map([['set', new Set([new Date(0), 1n, new Uint8Array([9])])]]),
      { deep: [[{ nan: Number.NaN }]] },
    ],
    plain: { n: 1.5, neg: -3, bool: false, nil: null, arr: [1, 'x', null], empty: {}, emptyArr: [] },
  };
}

/** Serialization: exact round trips, unserializable values rejected without a write, snapshot semantics. */
export const serializationSuite: ConformanceSuite = {
  title: 'serialization',
  define(kit) {
    it('round-trips Date, BigInt, Map, Set, Uint8Array, NaN/±Infinity, U+0000 and tag look-alikes', async () => {
      const cp = await kit.create();
      await cp.put(checkpoint('t', 0, { state: richState() }));
      const read = (await cp.get('t', 0))?.state as Record<string, unknown>;
      const expected = richState();
      for (const key of Object.keys(expected)) expect(read[key], `state.${key}`).toEqual(expected[key]);
      expect(Object.keys(read).sort()).toEqual(Object.keys(expected).sort());
      expect(read.date).toBeInstanceOf(Date);
      expect(typeof read.bigint).toBe('bigint');
      expect(read.map).toBeInstanceOf(Map);
      expect(read.set).toBeInstanceOf(Set);
      expect(read.bytes).toBeInstanceOf(Uint8Array);
    });

    it('round-trips rich values in interruptPayload too', async () => {
      const cp = await kit.create();
      const payload = { asked: new Date(0), amount: 10n, options: new Set(['yes', 'no']), raw: '\u0000' };
      await cp.put(
        checkpoint('t', 0, { interrupted: true, interruptNode: 'ask', interruptPayload: payload }),
      );
      expect((await cp.get('t'))?.interruptPayload).toEqual({
        asked: new Date(0),
        amount: 10n,
        options: new Set(['yes', 'no']),
        raw: '\u0000',
      });
    });

    it('a Buffer comes back as bytes equal to the original', async () => {
      const cp = await kit.create();
      await cp.put(checkpoint('t', 0, { state: { buf: Buffer.from('héllo') } }));
      const buf = ((await cp.get('t'))!.state as { buf: Uint8Array }).buf;
      expect(buf).toBeInstanceOf(Uint8Array);
      expect(Buffer.from(buf).toString()).toBe('héllo');
    });

    const unserializable: Array<[string, () => unknown]> = [
      ['a function', () => ({ fn: () => 1 })],
      ['a symbol', () => ({ sym: Symbol('s') })],
      [
        'a cycle',
        () => {
          const loop: Record<string, unknown> = { name: 'loop' };
          loop.self = loop;
          return { loop };
        },
      ],
      ['a function inside a Map', () => new Map([['k', () => 1]])],
    ];

    it('a function, a symbol or a cycle in state or interruptPayload rejects with SerializationError and writes nothing', async () => {
      const cp = await kit.create();
      const previous = await cp.put(checkpoint('t', 0, { state: 'previous' }));
      for (const [label, make] of unserializable) {
        await expectFlowError(
          () => cp.put(checkpoint('fresh', 0, { state: make() })),
          'SERIALIZATION',
          `put(state with ${label}) on a new thread`,
        );
        await expectFlowError(
          () => cp.put(checkpoint('t', 0, { state: make() })),
          'SERIALIZATION',
          `put(state with ${label}) over a stored step`,
        );
        await expectFlowError(
          () => cp.put(checkpoint('t', 1, { state: 'ok', interruptPayload: make() }), { ifRevision: 0 }),
          'SERIALIZATION',
          `put(interruptPayload with ${label})`,
        );
      }
      expect(await cp.get('fresh')).toBeUndefined();
      expect((await cp.listThreads()).map((i) => i.thread)).toEqual(['t']);
      const read = await cp.get('t');
      expect(read?.state).toBe('previous');
      expect(read?.revision).toBe(previous.revision);
      expect(await cp.list('t')).toHaveLength(1);
    });

    it('mutating a state after put never changes what is stored', async () => {
      const cp = await kit.create();
      const state = {
        list: [1, 2],
        map: new Map([['k', 'v']]),
        bytes: new Uint8Array([1, 2]),
        obj: { a: 1 },
      };
      const returned = await cp.put(new Checkpoint({ thread: 't', step: 0, state }));
      state.list.push(3);
      state.map.set('k', 'changed');
      state.bytes[0] = 99;
      state.obj.a = 2;
      (returned.state as typeof state).obj.a = 3;
      expect((await cp.get('t'))?.state).toEqual({
        list: [1, 2],
        map: new Map([['k', 'v']]),
        bytes: new Uint8Array([1, 2]),
        obj: { a: 1 },
      });
    });

    it('mutating a value returned by get never changes what is stored', async () => {
      const cp = await kit.create();
      await cp.put(
        checkpoint('t', 0, { state: { list: [1], nested: { a: 1 } }, interruptPayload: { q: 1 } }),
      );
      const first = (await cp.get('t'))!;
      (first.state as { list: number[] }).list.push(2);
      (first.state as { nested: { a: number } }).nested.a = 2;
      (first.interruptPayload as { q: number }).q = 2;
      const [listed] = await cp.list('t');
      (listed!.state as { list: number[] }).list.push(3);
      const again = await cp.get('t');
      expect(again?.state).toEqual({ list: [1], nested: { a: 1 } });
      expect(again?.interruptPayload).toEqual({ q: 1 });
    });
  },
};

/** Runs only the serialization checks: `describeSerialization('mine', harness)`. */
export const describeSerialization = describerFor(serializationSuite);
