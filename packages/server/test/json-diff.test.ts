import { describe, expect, it } from 'vitest';
import { diffJson } from '../src/json-diff.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Applies add/remove/replace operations in order (RFC 6902), to check the diff replays. */
function apply(doc: Json, ops: ReturnType<typeof diffJson>): Json {
  let root = structuredClone(doc);
  for (const op of ops) {
    if (op.path === '') {
      root = structuredClone(op.value as Json);
      continue;
    }
    const keys = op.path
      .slice(1)
      .split('/')
      .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = keys.pop()!;
    let parent = root as Record<string, Json> | Json[];
    for (const k of keys) parent = (parent as Record<string, Json>)[k] as Record<string, Json>;
    if (Array.isArray(parent)) {
      const i = Number(last);
      if (op.op === 'add') parent.splice(i, 0, structuredClone(op.value as Json));
      else if (op.op === 'remove') parent.splice(i, 1);
      else parent[i] = structuredClone(op.value as Json);
    } else if (op.op === 'remove') delete parent[last];
    else parent[last] = structuredClone(op.value as Json);
  }
  return root;
}

describe('diffJson', () => {
  it('gives add, remove and replace with escaped JSON Pointer paths', () => {
    expect(diffJson({ 'a/b': 1, '~': 2, same: [1] }, { 'a/b': 2, same: [1], n: null })).toEqual([
      { op: 'remove', path: '/~0' },
      { op: 'replace', path: '/a~1b', value: 2 },
      { op: 'add', path: '/n', value: null },
    ]);
    expect(diffJson(1, 'x')).toEqual([{ op: 'replace', path: '', value: 'x' }]);
    expect(diffJson({ a: [1] }, { a: { 0: 1 } })).toEqual([{ op: 'replace', path: '/a', value: { 0: 1 } }]);
    expect(diffJson({ x: { y: 1 } }, { x: { y: 1 } })).toEqual([]);
  });

  it('appending to an array is one add per entry; prepending keeps the old entries', () => {
    expect(diffJson({ log: ['a'] }, { log: ['a', 'b', 'c'] })).toEqual([
      { op: 'add', path: '/log/1', value: 'b' },
      { op: 'add', path: '/log/2', value: 'c' },
    ]);
    expect(diffJson(['b', 'c'], ['a', 'b', 'c'])).toEqual([{ op: 'add', path: '/0', value: 'a' }]);
    expect(diffJson(['a', 'b', 'c', 'd'], ['a', 'd'])).toEqual([
      { op: 'remove', path: '/2' },
      { op: 'remove', path: '/1' },
    ]);
  });

  it('replays: applying the changes to `from` gives `to`', () => {
    const cases: [Json, Json][] = [
      [
        { a: [1, 2, 3], b: { c: 'x' } },
        { a: [1, 9, 3, 4], b: { d: 'y' } },
      ],
      [
        [1, 2, 3, 4, 5],
        [0, 2, 4],
      ],
      [[{ id: 1, v: 'a' }], [{ id: 1, v: 'b' }, { id: 2 }]],
      [{ deep: { x: [[1], [2]] } }, { deep: { x: [[1, 2]] } }],
      [[], [1, 2]],
      [[1, 2], []],
    ];
    for (const [from, to] of cases) expect(apply(from, diffJson(from, to))).toEqual(to);
  });

  it('on a large array, compares the middle index by index (no quadratic search) and still replays', () => {
    const from = Array.from({ length: 20_000 }, (_, i) => i);
    const to = [...from.slice(0, 10_000), 'x', ...from.slice(10_000, 15_000), ...from.slice(15_001)];
    const ops = diffJson(from, to);
    // The common head and tail are kept: only the shifted middle (indices 10,000–15,000) is touched.
    expect(ops.length).toBe(5001);
    expect(apply(from, ops)).toEqual(to);
  });
});
