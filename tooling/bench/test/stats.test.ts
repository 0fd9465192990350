import { describe, expect, it } from 'vitest';
import { median, percentile, rotate, Samples } from '../src/stats.js';

describe('percentile and median', () => {
  it('takes the nearest rank, whatever the input order', () => {
    const values = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
    expect(percentile(values, 50)).toBe(5);
    expect(percentile(values, 99)).toBe(10);
    expect(percentile(values, 10)).toBe(1);
    expect(percentile([], 50)).toBeNaN();
  });

  it('averages the two middle values of an even count', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });
});

describe('Samples', () => {
  it('records each call and reports operations per second over the time spent', async () => {
    const s = new Samples();
    const value = await s.time(async () => {
      await new Promise((r) => setTimeout(r, 20));
      return 'ok';
    });
    expect(value).toBe('ok');
    expect(s.count).toBe(1);
    expect(s.totalMs).toBeGreaterThanOrEqual(15);
    expect(s.perSecond).toBeCloseTo(1000 / s.totalMs, 6);
  });
});

describe('rotate', () => {
  it('starts each round one store later, so every store goes first in turn', () => {
    expect(rotate(['a', 'b', 'c'], 0)).toEqual(['a', 'b', 'c']);
    expect(rotate(['a', 'b', 'c'], 1)).toEqual(['b', 'c', 'a']);
    expect(rotate(['a', 'b', 'c'], 5)).toEqual(['c', 'a', 'b']);
    expect(rotate([], 3)).toEqual([]);
  });
});
