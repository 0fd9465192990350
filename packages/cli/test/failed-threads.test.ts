import { MemoryCheckpointer } from '@flow/checkpoint-memory';
import { Checkpoint } from '@flow/core';
import { describe, expect, it } from 'vitest';
import { showCommand } from '../src/commands/show.js';
import { threadsCommand } from '../src/commands/threads.js';
import { createContext } from '../src/context.js';
import type { CliIo } from '../src/io.js';

/** A context writing to strings. */
function capture() {
  const out = { text: '' };
  const io: CliIo = {
    stdout: { write: (t: string) => (out.text += t) },
    stderr: { write: () => true },
    stdin: process.stdin,
    env: {},
    now: () => Date.parse('2026-01-01T00:10:00.000Z'),
  };
  return { ctx: createContext(io), out };
}

// The memory backend stores a run's error already; the CLI reads it through the protocol only, so any
// backend that stores it shows the same.
async function storeWithFailedRun(): Promise<MemoryCheckpointer> {
  const store = new MemoryCheckpointer();
  const ts = '2026-01-01T00:00:00.000Z';
  await store.put(new Checkpoint({ thread: 'ok', step: 0, state: {}, next: [], ts }));
  await store.put(new Checkpoint({ thread: 'working', step: 0, state: {}, next: ['a'], ts }));
  await store.put(
    new Checkpoint({
      thread: 'charge-7',
      step: 3,
      state: {},
      next: ['charge'],
      error: { node: 'charge', message: 'card declined\n  (code 51)' },
      ts,
    }),
  );
  return store;
}

describe('flow threads --status failed', () => {
  it('lists failed runs with their node and error, on one line', async () => {
    const store = await storeWithFailedRun();
    const { ctx, out } = capture();
    await threadsCommand(ctx, store, { status: 'failed', json: false });
    expect(out.text).toBe(
      'THREAD    STEP  STATUS  AGE      ERROR\n' +
        'charge-7  3     failed  10m ago  charge: card declined (code 51)\n',
    );
  });

  it('--json gives the ThreadInfo with failed and error', async () => {
    const store = await storeWithFailedRun();
    const { ctx, out } = capture();
    await threadsCommand(ctx, store, { status: 'failed', json: true });
    expect(JSON.parse(out.text)).toEqual([
      {
        thread: 'charge-7',
        latestStep: 3,
        interrupted: false,
        done: false,
        failed: true,
        error: { node: 'charge', message: 'card declined\n  (code 51)' },
        ts: '2026-01-01T00:00:00.000Z',
      },
    ]);
  });

  it('a plain listing shows the failed status, and show prints the error', async () => {
    const store = await storeWithFailedRun();
    const { ctx, out } = capture();
    await threadsCommand(ctx, store, { json: false });
    expect(out.text).toMatch(/^charge-7\s+3\s+failed\s+10m ago$/m);
    expect(out.text).toMatch(/^working\s+0\s+running\s+10m ago$/m);
    const shown = capture();
    await showCommand(shown.ctx, store, 'charge-7', { redact: [], json: false });
    expect(shown.out.text).toMatch(/^status\s+failed$/m);
    expect(shown.out.text).toMatch(/^error\s+charge: card declined \(code 51\)$/m);
  });
});
