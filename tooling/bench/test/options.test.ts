import { describe, expect, it } from 'vitest';
import { FULL_SIZES, parseOptions, QUICK_SIZES, UsageError, usage } from '../src/options.js';

describe('parseOptions', () => {
  it('runs every workload on every backend at the issue sizes by default', () => {
    const o = parseOptions([], '/out');
    expect(o.quick).toBe(false);
    expect(o.sizes).toEqual(FULL_SIZES);
    expect(o.sizes['w4-threads']).toBe(5000);
    expect(o.workloads).toEqual([
      'w1',
      'w2',
      'w3',
      'w4',
      'w5',
      'w6',
      'w7',
      'conc',
      'w9',
      'normal',
      'enc',
      'lease',
      'workers',
      'recovery',
      'lg',
    ]);
    expect(o.backends).toEqual(['memory', 'sqlite', 'postgres', 'redis', 'file']);
    expect(o.outDir).toBe('/out');
  });

  it('--quick picks smaller sizes, and a size flag overrides one of them', () => {
    const o = parseOptions(['--quick', '--w1-threads', '3'], '/out');
    expect(o.quick).toBe(true);
    expect(o.sizes['w1-threads']).toBe(3);
    expect(o.sizes['w4-threads']).toBe(QUICK_SIZES['w4-threads']);
    expect(QUICK_SIZES['w4-threads']).toBeLessThan(FULL_SIZES['w4-threads']);
  });

  it('keeps --only and --backends in run order whatever order they are typed in', () => {
    const o = parseOptions(['--only', 'w5, W1', '--backends', 'redis,sqlite'], '/out');
    expect(o.workloads).toEqual(['w1', 'w5']);
    expect(o.backends).toEqual(['sqlite', 'redis']);
  });

  it('--no-write leaves the results directory unset; --out replaces it', () => {
    expect(parseOptions(['--no-write'], '/out').outDir).toBeUndefined();
    expect(parseOptions(['--out', '/elsewhere'], '/out').outDir).toBe('/elsewhere');
  });

  it.each([
    [['--only', 'w99']],
    [['--backends', 'mysql']],
    [['--w1-steps', '0']],
    [['--w1-steps', '1.5']],
    [['--no-such-flag']],
    [['positional']],
  ])('rejects %j with a UsageError', (argv) => {
    expect(() => parseOptions(argv, '/out')).toThrow(UsageError);
  });

  it('lists every size flag in the usage text', () => {
    for (const key of Object.keys(FULL_SIZES)) expect(usage()).toContain(`--${key}`);
  });
});
