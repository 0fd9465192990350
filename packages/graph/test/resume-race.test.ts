import { join } from 'node:path';
import { SqliteCheckpointer } from '@flow/checkpoint-sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import * as engine from '../src/index.js';
import { pipeline } from './fixtures/pipeline.mjs';
import { tempDir } from './support/backends.js';
import { runFixture } from './support/child.js';

const RESUMERS = 6;

describe('racing resumers on SQLite', () => {
  const dir = tempDir();
  const db = join(dir, 'race.db');
  const checkpointer = new SqliteCheckpointer(db);
  afterAll(() => checkpointer.close());

  it(`of ${RESUMERS} processes answering one interrupt, exactly one runs; the others get AlreadyResumed`, {
    timeout: 30_000,
  }, async () => {
    // Interrupt the thread at `c` with the children's pipeline, on the source.
    const app = pipeline(engine, checkpointer, { ask: true });
    const stop = await app.invoke({ log: [] }, { thread: 'raced' });
    expect(stop).toMatchObject({ status: 'interrupted', step: 3, interrupt: { node: 'c' } });

    const children = Array.from({ length: RESUMERS }, (_, i) =>
      runFixture('resume-child.mjs', [db, 'raced', `answer-${i}`]),
    );
    await Promise.all(children.map((c) => c.line(/^ready$/)));
    for (const c of children) c.process.stdin?.write('go\n');
    const outcomes = await Promise.all(children.map(async (c) => JSON.parse(await c.line(/^\{/))));
    await Promise.all(children.map((c) => c.exited));

    const winners = outcomes.filter((o) => o.ok);
    const losers = outcomes.filter((o) => !o.ok);
    expect(winners).toHaveLength(1);
    expect(losers.map((o) => o.code)).toEqual(Array(RESUMERS - 1).fill('ALREADY_RESUMED'));
    expect(winners[0].status).toBe('done');

    const final = await app.getState('raced');
    expect(final?.done).toBe(true);
    const answered = final?.state.log.filter((entry) => entry.includes(':answer-')) ?? [];
    expect(answered).toHaveLength(1);
    expect(final?.state.log).toEqual(winners[0].log);
    const steps = (await app.history('raced')).map((c) => c.step);
    expect(steps).toEqual([6, 5, 4, 3, 2, 1, 0]);
  });
});
