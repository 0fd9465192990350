import { describe, expect, it } from 'vitest';
import { compareWrites } from '../src/index.js';

describe('compareWrites', () => {
  it('orders by node, then key, in code-point order (an emoji after U+E000, unlike UTF-16 order)', () => {
    const writes = [
      { node: '😀', key: 'a' },
      { node: '\uE000', key: 'b' },
      { node: 'a', key: '😀' },
      { node: 'a', key: '\uE000' },
      { node: 'a', key: 'a' },
    ];
    expect([...writes].sort(compareWrites)).toEqual([
      { node: 'a', key: 'a' },
      { node: 'a', key: '\uE000' },
      { node: 'a', key: '😀' },
      { node: '\uE000', key: 'b' },
      { node: '😀', key: 'a' },
    ]);
    expect(compareWrites({ node: 'n', key: 'k' }, { node: 'n', key: 'k' })).toBe(0);
  });
});
