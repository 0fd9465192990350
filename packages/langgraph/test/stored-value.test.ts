import { HumanMessage } from '@langchain/core/messages';
import { JsonPlusSerializer, type SerializerProtocol } from '@langchain/langgraph-checkpoint';
import { describe, expect, it, vi } from 'vitest';
import { LIST_FORM_CHARS, loadValue, storePlain, storeValue } from '../src/stored-value.js';

/** The text LangGraph's serializer itself makes of `value`. */
async function serdeText(serde: SerializerProtocol, value: unknown): Promise<string> {
  const [type, data] = await serde.dumpsTyped(value);
  expect(type).toBe('json');
  return typeof data === 'string' ? data : new TextDecoder().decode(data);
}

function nested(depth: number): unknown {
  let v: unknown = { leaf: [1, 'two', null] };
  for (let i = 0; i < depth; i++) v = i % 2 === 0 ? { v } : [v];
  return v;
}

const cyclic: Record<string, unknown> = { a: 1 };
cyclic.self = cyclic;
class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

/** Values of every kind a channel, a write or metadata may hold. */
const values: [string, unknown][] = [
  ['a number', 42],
  ['-0, NaN and Infinity', [-0, Number.NaN, Number.POSITIVE_INFINITY]],
  ['a string with quotes, U+0000 and a lone surrogate', 'say "hi"\u0000\ud800'],
  ['booleans and null', [true, false, null]],
  ['metadata', { source: 'loop', step: 3, parents: {}, writes: { a: { n: 1 } } }],
  ['an object without a prototype', Object.assign(Object.create(null), { k: 'v' })],
  ['plain data 60 levels deep', nested(60)],
  ['plain data 100 levels deep', nested(100)],
  ['undefined', undefined],
  ['undefined in an object', { a: 1, b: undefined }],
  ['undefined in an array', [1, undefined]],
  // biome-ignore lint/suspicious/noSparseArray: the hole is the case
  ['an array with a hole', [1, , 3]],
  ['a Set and a Map', { s: new Set([1]), m: new Map([['k', 1]]) }],
  ['a Date', { at: new Date(0) }],
  ['bytes inside an object', { b: new Uint8Array([1, 2]) }],
  ['an Error and a RegExp', [new Error('boom'), /x+/g]],
  ['an object shaped like a Send', { lg_name: 'Send', node: 'a', args: { n: 1 }, extra: true }],
  ['an object with toJSON', { toJSON: () => 'replaced' }],
  ['a class instance', new Point(1, 2)],
  ['a LangChain message', [new HumanMessage({ content: 'hi', id: 'm1' })]],
  ['a cycle', cyclic],
  ['a bigint', { n: 10n }],
];

describe('stored values under LangGraph’s default serializer', () => {
  const serde = new JsonPlusSerializer();

  it.each(values)('%s: the same text as JsonPlusSerializer, and the same value back', async (_, value) => {
    const stored = await storeValue(serde, value);
    expect(stored).toEqual({ t: 'json', s: await serdeText(serde, value) });
    expect(await loadValue(serde, stored)).toEqual(
      await serde.loadsTyped('json', await serdeText(serde, value)),
    );
  });

  it('plain JSON data skips the serde; anything else goes through it', async () => {
    const spied = new JsonPlusSerializer();
    const dumps = vi.spyOn(spied, 'dumpsTyped');
    await storeValue(spied, { source: 'loop', step: 1, parents: {} });
    await storeValue(spied, 'b');
    expect(dumps).not.toHaveBeenCalled();
    await storeValue(spied, { at: new Date(0) });
    expect(dumps).toHaveBeenCalledTimes(1);
  });

  it('a subclass of JsonPlusSerializer (it may write plain data its own way) is always called', async () => {
    class Upper extends JsonPlusSerializer {
      override async dumpsTyped(value: unknown): Promise<[string, Uint8Array]> {
        return ['json', new TextEncoder().encode(JSON.stringify(value).toUpperCase())];
      }
    }
    expect(await storeValue(new Upper(), 'b')).toEqual({ t: 'json', s: '"B"' });
  });
});

describe('a long JSON list is stored as its items’ texts', () => {
  const serde = new JsonPlusSerializer();
  const long = Array.from({ length: 20 }, (_, i) => ({ n: i, text: `item ${i} ${'x'.repeat(60)}` }));

  it('a list of plain data at least LIST_FORM_CHARS long: one text per item, joined back to the same text', async () => {
    expect(JSON.stringify(long).length).toBeGreaterThanOrEqual(LIST_FORM_CHARS);
    const stored = await storeValue(serde, long);
    expect(stored).toEqual({ t: 'json', l: long.map((item) => JSON.stringify(item)) });
    expect(storePlain(serde, long)).toEqual(stored);
    expect(await loadValue(serde, stored)).toEqual(long);
  });

  it('LangChain messages go through the serde and come back as messages', async () => {
    const messages = Array.from(
      { length: 8 },
      (_, i) => new HumanMessage({ content: `hello ${i} ${'y'.repeat(100)}` }),
    );
    const stored = await storeValue(serde, messages);
    expect('l' in stored && stored.l).toHaveLength(8);
    expect(`[${(stored as { l: readonly string[] }).l.join(',')}]`).toBe(await serdeText(serde, messages));
    const back = (await loadValue(serde, stored)) as HumanMessage[];
    expect(back.every((m) => m instanceof HumanMessage)).toBe(true);
    expect(back.map((m) => m.content)).toEqual(messages.map((m) => m.content));
  });

  it('a short list, an object and a text its items do not rebuild exactly stay one text', async () => {
    expect(await storeValue(serde, [1, 2, 3])).toEqual({ t: 'json', s: '[1,2,3]' });
    const object = Object.fromEntries(long.map((item, i) => [`k${i}`, item]));
    expect(await storeValue(serde, object)).toMatchObject({ t: 'json', s: JSON.stringify(object) });
    // A serde of its own whose text has spacing: splitting it and joining the items back would change it.
    class Spaced extends JsonPlusSerializer {
      override async dumpsTyped(value: unknown): Promise<[string, Uint8Array]> {
        return ['json', new TextEncoder().encode(JSON.stringify(value, null, 1))];
      }
    }
    const spaced = await storeValue(new Spaced(), long);
    expect(spaced).toEqual({ t: 'json', s: JSON.stringify(long, null, 1) });
  });
});
