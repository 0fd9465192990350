import { Checkpoint, type Checkpointer } from '@flow/core';

const MINUTE = 60_000;

/** A thread id with every character class a backend must store safely. */
export const HOSTILE_THREAD = 'a/../b "q" 🚀';

/** The richest state of the fixture: every type the serializer round-trips, plus keys worth redacting. */
export function richState() {
  return {
    log: ['work 0', 'work 1', 'work 2'],
    n: 3,
    at: new Date('2025-01-02T03:04:05.678Z'),
    big: 10n ** 20n,
    tags: new Set(['a', 'b']),
    seen: new Map<string, unknown>([['x', { password: 'in-a-map' }]]),
    blob: new Uint8Array([1, 2, 3]),
    ratio: Number.NaN,
    inf: Number.POSITIVE_INFINITY,
    user: { name: 'ada', password: 'hunter2' },
    apiKey: 'key-123',
  };
}

/** `richState()` as `--json` renders it. */
export const RICH_STATE_JSON = {
  log: ['work 0', 'work 1', 'work 2'],
  n: 3,
  at: '2025-01-02T03:04:05.678Z',
  big: '100000000000000000000',
  tags: ['a', 'b'],
  seen: [['x', { password: 'in-a-map' }]],
  blob: 'AQID',
  ratio: 'NaN',
  inf: 'Infinity',
  user: { name: 'ada', password: 'hunter2' },
  apiKey: 'key-123',
};

/** Minutes before `now`, as an ISO timestamp. */
export function minutesAgo(now: number, minutes: number): string {
  return new Date(now - minutes * MINUTE).toISOString();
}

/**
 * The checkpoints every store test starts from (each written once, so every revision is 1):
 * - `order-42`: steps 0–3, the last interrupted at `review` with a payload, holding `richState()`
 * - `done-1`: steps 0–1, finished
 * - `running-1`: step 0 with a frontier
 * - `HOSTILE_THREAD`: one finished step
 * - `prune-me`: steps 0–5 written 50, 40, 30, 20, 10 and 0 minutes ago
 * - `delete-me`: steps 0–1
 */
export function fixtureCheckpoints(now: number): Checkpoint[] {
  const cps: Checkpoint[] = [];
  for (let step = 0; step < 3; step++) {
    cps.push(
      new Checkpoint({
        thread: 'order-42',
        step,
        state: { log: [], n: step },
        next: ['work'],
        ts: minutesAgo(now, 10 - step),
      }),
    );
  }
  cps.push(
    new Checkpoint({
      thread: 'order-42',
      step: 3,
      state: richState(),
      next: ['review'],
      interrupted: true,
      interruptNode: 'review',
      interruptPayload: { question: 'ok?', token: 'tok-secret' },
      ts: minutesAgo(now, 3),
    }),
  );
  cps.push(
    new Checkpoint({ thread: 'done-1', step: 0, state: { ok: false }, next: ['a'], ts: minutesAgo(now, 90) }),
  );
  cps.push(new Checkpoint({ thread: 'done-1', step: 1, state: { ok: true }, ts: minutesAgo(now, 60 * 5) }));
  cps.push(
    new Checkpoint({ thread: 'running-1', step: 0, state: {}, next: ['work'], ts: minutesAgo(now, 0.5) }),
  );
  cps.push(
    new Checkpoint({
      thread: HOSTILE_THREAD,
      step: 0,
      state: { emoji: '🚀' },
      ts: minutesAgo(now, 60 * 24 * 2),
    }),
  );
  for (let step = 0; step < 6; step++) {
    cps.push(
      new Checkpoint({
        thread: 'prune-me',
        step,
        state: { step },
        next: step === 5 ? [] : ['work'],
        ts: minutesAgo(now, 50 - 10 * step),
      }),
    );
  }
  for (let step = 0; step < 2; step++) {
    cps.push(new Checkpoint({ thread: 'delete-me', step, state: { step }, ts: minutesAgo(now, 20) }));
  }
  return cps;
}

/** Writes the fixture into a store through the API. */
export async function populate(store: Checkpointer, now = Date.now()): Promise<Checkpoint[]> {
  const cps = fixtureCheckpoints(now);
  for (const cp of cps) await store.put(cp);
  return cps;
}
