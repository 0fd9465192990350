import { join } from 'node:path';
import { SqliteCheckpointer } from '@flow/checkpoint-sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import * as engine from '../src/index.js';
import { pipeline } from './fixtures/pipeline.mjs';
import { tempDir } from './support/backends.js';
import { runFixture } from './support/child.js';

describe('crash recovery on SQLite', () => {
  const dir = tempDir();
  const checkpointer = new SqliteCheckpointer(join(dir, 'crash.db'));
  afterAll(() => checkpointer.close());

  it('a run killed with SIGKILL mid-run resumes in another process from its last committed step', {
    timeout: 30_000,
  }, async () => {
    const child = runFixture('crash-child.mjs', [join(dir, 'crash.db'), 'crashed-run']);
    const hanging = await child.line(/^hanging in c/);
    expect(hanging).toBe('hanging in c at step 2');
    child.process.kill('SIGKILL');
    expect(await child.exited).toEqual({ code: null, signal: 'SIGKILL' });

    // The child's pipeline, on the source, without the hang.
    const app = pipeline(engine, checkpointer);
    const left = await app.getState('crashed-run');
    expect(left).toMatchObject({ step: 2, next: ['c'], interrupted: false, done: false });
    const childPid = child.process.pid;
    expect(left?.state.log).toEqual([`a@${childPid}`, `b@${childPid}`]);

    await expect(app.invoke({ log: [] }, { thread: 'crashed-run' })).rejects.toMatchObject({
      code: 'THREAD_BUSY',
    });
    const done = await app.resume('crashed-run');
    expect(done).toMatchObject({ status: 'done', step: 5 });
    expect(done.state.log).toEqual([
      `a@${childPid}`,
      `b@${childPid}`,
      `c@${process.pid}`,
      `d@${process.pid}`,
    ]);
    const history = await app.history('crashed-run');
    expect(history.map((c) => c.step)).toEqual([5, 4, 3, 2, 1, 0]);
    // Step 3 is the claim: the state the crashed process left, with the frontier it did not finish.
    expect(history[2]).toMatchObject({ step: 3, next: ['c'], interrupted: false, state: left?.state });
  });
});
