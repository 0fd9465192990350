import type { BenchContext } from './context.js';
import { progress } from './progress.js';
import type { Recorder } from './report/recorder.js';
import { memorySuite } from './stores/memory.js';
import { postgresSuite } from './stores/postgres.js';
import { redisSuite } from './stores/redis.js';
import { sqliteSuite } from './stores/sqlite.js';
import type { BackendSuite } from './stores/types.js';

/** Prepares the comparison on every backend the options name; a backend that cannot start is a failure. */
export async function openSuites(ctx: BenchContext, rec: Recorder): Promise<BackendSuite[]> {
  const suites: BackendSuite[] = [];
  const makers = {
    memory: () => memorySuite(),
    sqlite: () => sqliteSuite(ctx),
    postgres: () => postgresSuite(ctx),
    redis: () => redisSuite(ctx),
  } as const;
  for (const id of ctx.options.backends) {
    // The file backend has no raw floor or suite here: only the storage workloads (W6, W9) measure it.
    if (id === 'file') continue;
    await rec.guard('setup', id, async () => {
      const suite = (await makers[id]()) as BackendSuite;
      progress(`${id}: ${suite.subjects.map((s) => s.label).join(' | ')}`);
      suites.push(suite);
    });
  }
  return suites;
}
