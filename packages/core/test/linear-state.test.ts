import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CorruptCheckpointError,
  encryptedSerializer,
  jsonSerializer,
  type Serializer,
} from '../src/index.js';
import { decodeLinear } from '../src/linear/decode.js';
import { encodeLinear, type ThreadMemo } from '../src/linear/encode.js';
import { SMALL_STATE } from '../src/linear/format.js';

/** What a backend keeps of one put: the state text, its refs (empty: a whole state). */
interface Stored {
  step: number;
  state: string;
  refs: string[];
}

/** A thread written put after put with one memo, as BaseCheckpointer does, its chunks kept in one map. */
function thread(serializer: Serializer = jsonSerializer, name = 't') {
  const chunks = new Map<string, string>();
  const records: Stored[] = [];
  let memo: ThreadMemo | undefined;
  /** Bytes written by each put: state text, refs as JSON, new chunks' ids and data. */
  const written: number[] = [];
  return {
    chunks,
    records,
    written,
    put(step: number, state: unknown): Stored {
      const linear = encodeLinear(state, { thread: name, step }, serializer, memo);
      let record: Stored;
      if (linear !== undefined) memo = linear.memo;
      if (linear?.stateText === undefined) {
        record = {
          step,
          state: serializer.serialize(state, { thread: name, step, field: 'state' }),
          refs: [],
        };
        written.push(record.state.length);
      } else {
        // Every chunk a put writes is one its record references: nothing is written and then merged away.
        expect(linear.chunks.filter((c) => !linear.refs.includes(c.id))).toEqual([]);
        let bytes = linear.stateText.length + JSON.stringify(linear.refs).length;
        for (const c of linear.chunks) {
          if (!chunks.has(c.id)) chunks.set(c.id, c.data);
          bytes += c.id.length + c.data.length;
        }
        record = { step, state: linear.stateText, refs: linear.refs };
        written.push(bytes);
      }
      records.push(record);
      return record;
    },
    read(record: Stored): unknown {
      if (record.refs.length === 0) {
        return serializer.deserialize(record.state, { thread: name, step: record.step, field: 'state' });
      }
      return decodeLinear(
        {
          thread: name,
          step: record.step,
          state: record.state,
          refs: record.refs,
          chunks: record.refs.flatMap((id) => (chunks.has(id) ? [{ id, data: chunks.get(id)! }] : [])),
        },
        {
          deserialize: (text, context) => serializer.deserialize(text, context),
          corrupt: (detail) => {
            throw new CorruptCheckpointError(`step ${record.step}`, detail);
          },
        },
      );
    },
  };
}

const msg = (i: number, bytes = 200) => ({
  role: i % 2 === 0 ? 'user' : 'assistant',
  content: `#${i} ${'lorem ipsum dolor sit amet '.repeat(Math.ceil(bytes / 27))}`.slice(0, bytes - 36),
});

/** Puts each state in turn, then reads every record back: each must equal the state put. */
function expectExact(states: readonly unknown[], serializer?: Serializer) {
  const t = thread(serializer);
  const snapshots = states.map((s) => structuredClone(s));
  const records = states.map((s, i) => t.put(i, s));
  for (const [i, r] of records.entries()) expect(t.read(r), `step ${i}`).toEqual(snapshots[i]);
  return t;
}

const longList = (n: number, from = 0) => Array.from({ length: n }, (_, i) => msg(from + i));

describe('linear state encoding', () => {
  it('stores small states whole, and large ones as a skeleton and chunks once they share parts', () => {
    const t = thread();
    expect(t.put(0, { n: 1, list: [1, 2, 3] }).refs).toEqual([]);
    // Nothing to share yet (or a state that changed everywhere): whole, as chunks would only add rows.
    expect(t.put(1, { list: longList(40) }).refs).toEqual([]);
    expect(t.put(2, { list: longList(40, 1000) }).refs).toEqual([]);
    const large = t.put(3, { list: longList(41, 1000) });
    expect(large.refs.length).toBeGreaterThan(0);
    expect(large.state.length).toBeLessThan(200);
    expect(t.read(large)).toEqual({ list: longList(41, 1000) });
    expect(t.put(4, { list: longList(42, 1000) }).refs.length).toBeGreaterThan(0);
  });

  it('an append writes only the new items', () => {
    const t = thread();
    t.put(0, { messages: longList(30) });
    t.put(1, { messages: longList(31) });
    const before = t.chunks.size;
    t.put(2, { messages: longList(32) });
    expect(t.chunks.size).toBe(before + 1);
    expect(t.written[2]).toBeLessThan(200 * 2);
  });

  it('reads every step exactly across every kind of change', () => {
    const base = longList(30);
    const states: unknown[] = [
      { messages: base, meta: { a: 1 } },
      { messages: [...base, msg(30)], meta: { a: 1 } }, // append
      { messages: [...base, msg(30), msg(31), msg(32)], meta: { a: 2, b: 'x' } }, // appends, replaced key
      { messages: [...base.slice(0, 10), ...base.slice(11), msg(30)], meta: { a: 2 } }, // removal in the middle
      { messages: base.slice(5), meta: { a: 2 } }, // removal at the front
      { messages: base.slice(0, 12), meta: { a: 2 } }, // a list shrinking
      { messages: base.map((m, i) => (i === 20 ? { ...m, content: 'edited' } : m)) }, // nested edit, key removed
      { messages: { ...base } }, // type change: list to object
      { messages: 'x'.repeat(5000) }, // type change: object to a long string
      { messages: base, extra: { deep: { deeper: { list: longList(20, 100) } } } }, // nested large parts
      { messages: base, extra: { deep: { deeper: { list: [...longList(20, 100), msg(1)] } } } }, // nested append
      base, // a list at the root
      [...base, msg(99)],
      { n: 1 }, // large to small
      { messages: base }, // small to large again
    ];
    expectExact(states);
  });

  it('reads Map, Set, Date, bytes, BigInt, undefined, -0, NaN and tag-like keys exactly', () => {
    const odd = (i: number) => ({
      i,
      when: new Date(1_700_000_000_000 + i),
      big: 10n ** 30n + BigInt(i),
      bytes: new Uint8Array([i, 255, 0]),
      map: new Map<unknown, unknown>([[i, { x: 'y'.repeat(40) }]]),
      set: new Set([i, 'a', null]),
      nothing: undefined,
      negZero: -0,
      nan: Number.NaN,
      $flow: 'not a tag',
      ['__proto__']: { polluted: i },
      text: 'z'.repeat(120),
    });
    const states = [5, 6, 7].map((n) => ({
      items: Array.from({ length: n * 3 }, (_, i) => odd(i)),
      map: new Map(Array.from({ length: n * 20 }, (_, i) => [`k${i}`, 'v'.repeat(30)])),
      keyed: Object.fromEntries(
        Array.from({ length: n * 20 }, (_, i) => [`key ${i}`, { v: 'w'.repeat(30) }]),
      ),
      // biome-ignore lint/suspicious/noSparseArray: a hole reads back as undefined, as in a whole state
      sparse: [1, , 3, ...longList(15)],
    }));
    const t = expectExact(states);
    // The object of many keys is stored by entries, so adding keys shares the earlier ones.
    expect(t.records[2]!.refs.filter((id) => t.records[1]!.refs.includes(id)).length).toBeGreaterThan(0);
  });

  it('reads a growing Map and Set exactly across every kind of change, with either serializer', () => {
    const entries = (n: number, from = 0) =>
      Array.from({ length: n }, (_, i) => [`call-${from + i}`, msg(from + i)] as [string, unknown]);
    const base = entries(30);
    const odd = new Map<unknown, unknown>([
      [1, 'one'],
      [{ k: 'object key' }, new Date(5)],
      [10n, new Set([1, 2])],
      [Number.NaN, new Uint8Array([1, 2])],
      ['$flow', { $flow: 'map' }],
    ]);
    const states: unknown[] = [
      { results: new Map(base), seen: new Set(base.map(([k]) => k)) },
      { results: new Map([...base, ...entries(1, 30)]), seen: new Set([...base.map(([k]) => k), 'call-30']) }, // an entry added
      { results: new Map(base.slice(1)), seen: new Set(base.slice(1).map(([k]) => k)) }, // the oldest removed
      { results: new Map(base.map(([k, v], i) => [k, i === 12 ? 'replaced' : v])) }, // a value replaced
      { results: new Map([...base].reverse()) }, // the order changed (a Map keeps insertion order)
      { results: new Map<unknown, unknown>([...base, [odd, odd]]) }, // keys and values of every kind
      { results: new Map(base.slice(0, 3)) }, // shrinking below the inline size
      { results: base }, // a Map becoming a list
      { results: new Set(base.map(([, v]) => v)) }, // a list becoming a Set of objects
      { results: new Set([...base.map(([, v]) => v), msg(77)]) },
      new Map(base), // a Map at the root
      new Map([...base, ...entries(2, 40)]),
    ];
    for (const serializer of [
      jsonSerializer,
      encryptedSerializer({ keys: { k: randomBytes(32) }, current: 'k' }),
    ]) {
      const t = expectExact(states, serializer);
      // The entry added at step 1 is the only one written: the 30 before it are referenced again.
      expect(t.records[1]!.refs.length).toBeGreaterThan(1);
    }
  });

  it('grows linearly when a Map or a Set gains an entry per step', () => {
    const run = (steps: number, kind: 'map' | 'set') => {
      const t = thread();
      const results = new Map<string, unknown>();
      for (let s = 0; s <= steps; s++) {
        const state = kind === 'map' ? { results: new Map(results) } : { results: new Set(results.values()) };
        const record = t.put(s, state);
        if (s % 100 === 0) expect(t.read(record)).toEqual(state);
        results.set(`call-${s}`, msg(s));
      }
      return t.written.reduce((a, b) => a + b, 0);
    };
    // A Map stored as one value at every step would be quadratic: 4× for twice the steps.
    for (const kind of ['map', 'set'] as const)
      expect(run(400, kind) / run(200, kind), kind).toBeLessThanOrEqual(2.5);
  }, 60_000);

  it('decides sharing by text, never by identity: a list mutated in place still reads exactly', () => {
    const messages = longList(40);
    const state = { messages };
    const t = thread();
    const first = t.put(0, state);
    const snapshot0 = structuredClone(state);
    messages[3] = { role: 'user', content: 'changed in place' };
    messages.push(msg(40));
    const second = t.put(1, state);
    expect(t.read(first)).toEqual(snapshot0);
    expect(t.read(second)).toEqual(structuredClone(state));
  });

  it('crosses the small/large threshold both ways at every size around it', () => {
    const states = Array.from({ length: 60 }, (_, i) => ({
      list: Array.from({ length: i < 30 ? i : 60 - i }, (_, j) => 'x'.repeat(j % 7) + 'y'.repeat(90)),
    }));
    const t = expectExact(states);
    const kinds = t.records.map((r) => r.refs.length > 0);
    expect(kinds).toContain(true);
    expect(kinds).toContain(false);
    expect(JSON.stringify(states[25]).length).toBeGreaterThan(SMALL_STATE);
  });

  it('a missing chunk or a changed ref list is a CorruptCheckpointError naming it', () => {
    const t = thread();
    t.put(0, { messages: longList(29) });
    const record = t.put(1, { messages: longList(30) });
    const id = record.refs[0]!;
    const data = t.chunks.get(id)!;
    t.chunks.delete(id);
    expect(() => t.read(record)).toThrow(new RegExp(`chunk "${id}" is missing`));
    t.chunks.set(id, data);
    expect(() => t.read({ ...record, refs: record.refs.slice(1) })).toThrow(CorruptCheckpointError);
    expect(() => t.read({ ...record, refs: record.refs.slice(1) })).toThrow(/chunk references, not the/);
    // A ref swapped for a chunk of another place: its content says where it goes, and does not fit.
    const other = t.put(2, { messages: longList(30), other: longList(30, 500) });
    const foreign = other.refs.find((ref) => !record.refs.includes(ref))!;
    const swapped = { ...record, refs: [...record.refs.slice(0, -1), foreign] };
    expect(() => t.read(swapped)).toThrow(CorruptCheckpointError);
  });

  it('with the encrypted serializer, a chunk moved to another id or thread fails authentication', () => {
    const serializer = encryptedSerializer({ keys: { k: randomBytes(32) }, current: 'k' });
    const t = expectExact(
      [{ messages: longList(29) }, { messages: longList(30) }, { messages: longList(31) }],
      serializer,
    );
    const record = t.records[2]!;
    const [a, b] = record.refs;
    const dataA = t.chunks.get(a!)!;
    expect(dataA).toMatch(/^"flow-enc:/);
    t.chunks.set(a!, t.chunks.get(b!)!);
    t.chunks.set(b!, dataA);
    expect(() => t.read(record)).toThrow(/authentication failed/);
    t.chunks.set(b!, t.chunks.get(a!)!);
    t.chunks.set(a!, dataA);
    // Another thread's reader of the same texts.
    const elsewhere = thread(serializer, 'another');
    for (const [id, data] of t.chunks) elsewhere.chunks.set(id, data);
    expect(() => elsewhere.read({ ...record })).toThrow(/authentication failed/);
  });

  it('large items make few, large chunks: a W9-like thread references fewer, and items are copied as often', () => {
    // 50 messages of 2 KB, then one 2 KB tool output per step: each output fills a level-1 chunk's 4 KB
    // with the next one, so merging pairs would leave 31 chunks of two items at that level.
    const t = thread();
    const base = Array.from({ length: 50 }, (_, i) => msg(i, 2048));
    const messages: unknown[] = [...base];
    let last: Stored | undefined;
    let refs = 0;
    for (let s = 0; s < 200; s++) {
      last = t.put(s, { messages: [...messages] });
      refs += last.refs.length;
      messages.push(msg(1000 + s, 2048));
    }
    const final = JSON.stringify({ messages: messages.slice(0, -1) }).length;
    // A get reads, on average over the steps, under 10 chunks (merging pairs by size: 13).
    expect(refs / 200).toBeLessThanOrEqual(11);
    expect(t.read(last!)).toEqual({ messages: messages.slice(0, -1) });
    // Chunk text: the final state about three times (level 0, 1 and 2), as with runs merged by pairs.
    const text = [...t.chunks.values()].reduce((a, d) => a + d.length, 0);
    expect(text / final).toBeLessThanOrEqual(3);
  }, 60_000);

  it('grows linearly when each step also edits an old item in place (a summary at the head, a message near it)', () => {
    const run = (steps: number) => {
      const t = thread();
      const messages: unknown[] = [];
      for (let s = 0; s <= steps; s++) {
        const state = { messages: [...messages] };
        const record = t.put(s, state);
        if (s % 50 === 0) expect(t.read(record)).toEqual(state);
        messages.push(msg(s));
        if (s > 5) messages[s % 5] = { edited: s, text: 'e'.repeat(300) };
      }
      return t.written.reduce((a, b) => a + b, 0);
    };
    // Rewriting everything after the edit at every step would be quadratic: 4× for twice the steps.
    expect(run(400) / run(200)).toBeLessThanOrEqual(2.5);
  }, 60_000);

  it('reads a long string exactly across every kind of change, with either serializer', () => {
    const base = Array.from(
      { length: 40 },
      (_, i) => `line ${i}: ${'lorem ipsum dolor sit amet '.repeat(3)}\n`,
    ).join('');
    const emoji = `${'a'.repeat(1023)}😀${'b'.repeat(1022)}😀😀${'c'.repeat(3000)}`; // pairs across piece edges
    const states: unknown[] = [
      { log: base },
      { log: `${base}one more line\n` }, // appended
      { log: `${base}one more line\n${'x'.repeat(2500)}` }, // appended past a piece
      { log: `${base.slice(0, 1500)}EDITED${base.slice(1506)}` }, // edited in the middle, same length
      { log: `${base.slice(0, 700)}${base.slice(900)}` }, // cut in the middle: every later piece shifts
      { log: base.slice(0, 2100) }, // shrinking
      { log: base.slice(0, 2047) }, // below LONG_TEXT: a leaf again
      { log: emoji },
      { log: `${emoji}😀` },
      { log: `${emoji}\u0000 and on` }, // U+0000: the serializer's tag, stored as a leaf
      { log: base.split('\n') }, // a string becomes a list
      { log: base, notes: { draft: base.repeat(2) } }, // and back, with a second one nested
      [base, `${base}!`], // strings as list items stay leaves of their list
      `${base}${base}`, // a long string at the root
    ];
    for (const serializer of [
      jsonSerializer,
      encryptedSerializer({ keys: { k: randomBytes(32) }, current: 'k' }),
    ])
      expectExact(states, serializer);
  });

  it('grows linearly when a string gains text at every step (a transcript, a scratchpad)', () => {
    const run = (steps: number) => {
      const t = thread();
      let log = '';
      for (let s = 0; s <= steps; s++) {
        const record = t.put(s, { log });
        if (s % 50 === 0) expect(t.read(record)).toEqual({ log });
        log += `${msg(s).content}\n`;
      }
      return { bytes: t.written.reduce((a, b) => a + b, 0), final: JSON.stringify({ log }).length };
    };
    const two = run(200);
    const four = run(400);
    // The whole string at every step would be quadratic: 4× for twice the steps, about 100× the final text.
    expect(four.bytes / two.bytes).toBeLessThanOrEqual(2.5);
    expect(two.bytes / two.final).toBeLessThanOrEqual(7);
  }, 60_000);

  it('grows linearly: a W6-like run stores ≤ 5× its final JSON, and 400 steps ≤ 2.5× the bytes of 200', () => {
    const run = (steps: number) => {
      const t = thread();
      const messages: unknown[] = [];
      for (let s = 0; s <= steps; s++) {
        t.put(s, { messages: [...messages] });
        messages.push(msg(s));
      }
      const final = JSON.stringify({ messages: messages.slice(0, steps) }).length;
      return { bytes: t.written.reduce((a, b) => a + b, 0), final };
    };
    const two = run(200);
    const four = run(400);
    expect(two.bytes / two.final).toBeLessThanOrEqual(5);
    expect(four.bytes / four.final).toBeLessThanOrEqual(5);
    expect(four.bytes / two.bytes).toBeLessThanOrEqual(2.5);
  }, 60_000);
});
