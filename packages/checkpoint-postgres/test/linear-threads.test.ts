import { describe, expect, it } from 'vitest';
import { LinearThreads } from '../src/linear-threads.js';

describe('LinearThreads (the guess of which threads are linear)', () => {
  it('keeps the threads last noted linear, drops one noted whole or forgotten', () => {
    const threads = new LinearThreads();
    threads.note('a', true);
    threads.note('b', true);
    threads.note('b', false);
    threads.note('c', true);
    threads.forget('c');
    expect(['a', 'b', 'c'].map((t) => threads.has(t))).toEqual([true, false, false]);
  });

  it('holds at most 1,024 threads, forgetting the least recently noted first', () => {
    const threads = new LinearThreads();
    for (let i = 0; i < 1024; i++) threads.note(`t${i}`, true);
    threads.note('t0', true);
    threads.note('new', true);
    expect(['t0', 't1', 't2', 't1023', 'new'].map((t) => threads.has(t))).toEqual([
      true,
      false,
      true,
      true,
      true,
    ]);
  });
});
