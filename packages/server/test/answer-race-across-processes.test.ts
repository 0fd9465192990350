import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Checkpointer } from '@flow/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, path } from './support/client.js';
import { reviewGraph } from './support/graphs.mjs';
import { createStore, type StoreFixture } from './support/stores.js';

const CHILD = fileURLToPath(new URL('./support/serve-child.mjs', import.meta.url));
const TOKEN = 'race-token-31';

/** A server in its own process on the fixture's store; resolves with its URL. */
async function startServer(fixture: StoreFixture): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [CHILD], {
    env: { ...process.env, FLOW_TEST_STORE: JSON.stringify(fixture.spec), FLOW_TOKEN: TOKEN },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`server process exited ${code}`)));
  });
  return { url, child };
}

describe('racing answers over three server processes on one Postgres store', () => {
  let fixture: StoreFixture;
  let store: Checkpointer;
  let servers: { url: string; child: ChildProcess }[] = [];

  beforeAll(async () => {
    fixture = await createStore('postgres');
    store = fixture.open();
    await store.setup();
    servers = await Promise.all([startServer(fixture), startServer(fixture), startServer(fixture)]);
  });
  afterAll(async () => {
    await Promise.all(
      servers.map(
        ({ child }) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
    await store?.close();
    await fixture?.cleanup();
  });

  it('30 concurrent answers to one interrupt: exactly one 200, 29 × 409 ALREADY_RESUMED', async () => {
    const app = reviewGraph(store);
    const started = await app.invoke({ topic: 'owls', log: [] }, { thread: 'contested' });
    expect(started.status).toBe('interrupted');
    const interrupt = (started.interrupt as { id?: string }).id;
    const calls = servers.map((s) => client(s.url, TOKEN));
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        calls[i % 3]!('POST', path('graphs', 'pipeline', 'runs', 'contested', 'resume'), {
          answer: `answer ${i}`,
          ...(interrupt === undefined ? {} : { interrupt }),
        }),
      ),
    );
    const ok = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 409);
    expect(ok).toHaveLength(1);
    expect(refused).toHaveLength(29);
    for (const a of refused) expect(a.body.error.code).toBe('ALREADY_RESUMED');
    // The one that won is the answer the run kept.
    const latest = await app.getState('contested');
    expect(latest!.done).toBe(true);
    expect((latest!.state as { verdict: string }).verdict).toBe(ok[0]!.body.state.verdict);
  });
});
