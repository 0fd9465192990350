import { inspect } from 'node:util';
import {
  Checkpoint,
  type Checkpointer,
  createRedactor,
  isFlowError,
  jsonSerializer,
  type Serializer,
} from '@flow/core';
import { END, START, StateGraph } from '@flow/graph';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { corruptState } from './support/corrupt.js';
import { count } from './support/figures.js';
import { ALL_BACKENDS, freshStore, SHARED_BACKENDS, type Store } from './support/stores.js';

const SECRET = 'sk-live-7f3a9c2e-hunter2';
/** Pieces of the secret, so a message quoting a few characters around a parse error is caught too. */
const FRAGMENTS = [SECRET, SECRET.slice(0, 7), SECRET.slice(7, 14), SECRET.slice(-7)];

function leaks(text: string): string[] {
  return FRAGMENTS.filter((f) => text.includes(f));
}

/** Every line written to the console, stdout or stderr while a test runs. */
let logged: string[] = [];
beforeEach(() => {
  logged = [];
  for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      logged.push(args.map((a) => (typeof a === 'string' ? a : inspect(a))).join(' '));
    });
  }
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    vi.spyOn(stream, 'write').mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
      logged.push(String(chunk));
      return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write);
  }
});
afterEach(() => {
  vi.restoreAllMocks();
  expect(
    logged.filter((line) => leaks(line).length > 0),
    'log lines holding the secret',
  ).toEqual([]);
});

/** An error as a person would see it: its message, and everything `console.error(error)` would print. */
function expectNoSecret(error: unknown, what: string): void {
  expect(error, `${what} should have failed`).toBeInstanceOf(Error);
  let e: unknown = error;
  for (let depth = 0; e instanceof Error && depth < 5; depth++, e = e.cause) {
    expect(leaks(e.message), `${what}: message at depth ${depth}: ${e.message}`).toEqual([]);
  }
  expect(leaks(inspect(error, { depth: 10 })), `${what}: the error as logged, causes included`).toEqual([]);
}

async function failure(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** Writes JSON as the default serializer does, but reads it back damaged: a stand-in for a broken store. */
const readsDamaged: Serializer = {
  serialize: (value) => jsonSerializer.serialize(value),
  // (Postgres hands JSONB back as `"token": "…"`, with a space.)
  deserialize: (text) => JSON.parse(text.replace(/"token": ?"/, '"token":x')),
};

for (const backend of ALL_BACKENDS) {
  describe(`${backend}: no secret held in state reaches an error message or a log line`, () => {
    const stores: Store[] = [];
    const open = (options?: Record<string, unknown>): Checkpointer => {
      const store = freshStore(backend);
      stores.push(store);
      return store.open(options);
    };
    afterAll(async () => {
      for (const store of stores) await store.remove();
    });

    it('SerializationError (a function beside the secret) names the path, never the values', async () => {
      const cp = open();
      const error = await failure(() =>
        cp.put(
          new Checkpoint({
            thread: 't',
            step: 0,
            state: { token: SECRET, nested: { callback: () => SECRET } },
          }),
        ),
      );
      expect(isFlowError(error, 'SERIALIZATION')).toBe(true);
      expect((error as Error).message).toContain('state.nested.callback');
      expectNoSecret(error, 'put(state with a function)');
      const payload = await failure(() =>
        cp.put(
          new Checkpoint({
            thread: 't',
            step: 0,
            state: 1,
            interruptPayload: { token: SECRET, s: Symbol('x') },
          }),
        ),
      );
      expectNoSecret(payload, 'put(payload with a symbol)');
      count('secrets', 'inputs tried', 2);
    });

    it('CorruptCheckpointError of a state that no longer parses names the location, never the text', async () => {
      const cp = open({ serializer: readsDamaged });
      await cp.put(new Checkpoint({ thread: 't', step: 0, state: { token: SECRET }, next: ['n'] }));
      for (const [what, call] of [
        ['get', () => cp.get('t')],
        ['get(step)', () => cp.get('t', 0)],
        ['list', () => cp.list('t')],
      ] as const) {
        const error = await failure(call);
        expect(isFlowError(error, 'CORRUPT_CHECKPOINT'), `${what}: ${String(error)}`).toBe(true);
        expectNoSecret(error, what);
      }
      count('secrets', 'inputs tried', 3);
    });

    it('conflicts, invalid arguments and a closed checkpointer say nothing of the state', async () => {
      const cp = open();
      const cpWithSecret = new Checkpoint({ thread: 't', step: 0, state: { token: SECRET } });
      await cp.put(cpWithSecret);
      expectNoSecret(await failure(() => cp.put(cpWithSecret, { ifRevision: 0 })), 'conflicting put');
      expectNoSecret(await failure(() => cp.put(cpWithSecret, { ifRevision: -1 })), 'put(ifRevision: -1)');
      expectNoSecret(
        await failure(() => cp.put({ ...cpWithSecret, step: -1 } as unknown as Checkpoint)),
        'put(step: -1)',
      );
      if (backend !== 'memory') {
        await cp.close();
        expectNoSecret(await failure(() => cp.put(cpWithSecret)), 'put after close');
      }
      count('secrets', 'inputs tried', 4);
    });

    it('a failing node and a redacted stream keep the secret out of the NodeError and the events', async () => {
      const cp = open();
      const app = new StateGraph<{ token: string; n: number }>()
        .addNode('work', (s) => ({ n: s.n + 1 }))
        .addNode('boom', () => {
          throw new Error('the payment service is down');
        })
        .addEdge(START, 'work')
        .addEdge('work', 'boom')
        .addEdge('boom', END)
        .compile({ checkpointer: cp, redactor: createRedactor(['token']) });
      const events: unknown[] = [];
      const error = await failure(async () => {
        for await (const event of app.stream({ token: SECRET, n: 0 }, { thread: 't' })) events.push(event);
      });
      expect(isFlowError(error, 'NODE_FAILED')).toBe(true);
      expectNoSecret(error, 'NodeError');
      expect(leaks(inspect(events, { depth: 10 }))).toEqual([]);
      // The checkpoint keeps the real state: a redacted one could not be resumed.
      expect((await cp.get('t'))?.state).toMatchObject({ token: SECRET });
      count('secrets', 'inputs tried');
    });
  });
}

for (const backend of SHARED_BACKENDS) {
  describe(`${backend}: a record damaged in storage`, () => {
    let store: Store;
    afterAll(() => store?.remove());

    it('is a CorruptCheckpointError that names the record but none of its content; other threads stay readable', async () => {
      store = freshStore(backend);
      const cp = store.open();
      await cp.put(new Checkpoint({ thread: 'damaged', step: 0, state: { token: SECRET }, next: ['n'] }));
      await cp.put(new Checkpoint({ thread: 'fine', step: 0, state: { token: 'public' } }));
      await corruptState(store, 'damaged', SECRET);
      const reader = store.open();
      const error = await failure(() => reader.get('damaged'));
      expect(isFlowError(error, 'CORRUPT_CHECKPOINT'), String(error)).toBe(true);
      expect((error as Error).message).toMatch(/damaged|0000000000\.json/);
      expectNoSecret(error, 'get(damaged)');
      expect((await reader.get('fine'))?.state).toEqual({ token: 'public' });
      count('secrets', 'inputs tried');
    });
  });
}
