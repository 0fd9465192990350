import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolvePostgres, resolveRedis, stopContainers } from '@flow/test-db';
import type { BackendId, BenchOptions } from './options.js';
import { progress } from './progress.js';

/** What every store needs: where temp files go, the servers, and a list of things to remove at exit. */
export interface BenchContext {
  options: BenchOptions;
  /** A directory of this run's own, removed at exit. */
  tmpDir: string;
  postgresUrl: string | undefined;
  redisUrl: string | undefined;
  /** A fresh temp file path for a SQLite database. */
  tempPath(name: string): string;
  /** Runs `dispose` at exit if it has not run before (Ctrl-C included), so nothing is left behind. */
  track(dispose: () => Promise<void>): () => Promise<void>;
  /** Runs whatever is still tracked, then removes the temp directory. */
  cleanup(): Promise<void>;
}

/**
 * Creates the run's context: the temp directory, and the Postgres and Redis servers the chosen backends need,
 * found the way the test suites find them (FLOW_TEST_*_URL, else the default local port, else a container).
 */
export async function createContext(options: BenchOptions): Promise<BenchContext> {
  const tmpDir = mkdtempSync(join(tmpdir(), 'flow-bench-'));
  const needs = (b: BackendId) => options.backends.includes(b);
  const postgres = needs('postgres') ? await resolvePostgres() : undefined;
  const redis = needs('redis') ? await resolveRedis() : undefined;
  for (const [name, db] of [
    ['postgres', postgres],
    ['redis', redis],
  ] as const) {
    if (db === undefined) continue;
    progress(`${name}: ${redact(db.url)} (${db.source})`);
    if (db.source === 'container') progress(`${name}: a throwaway container; its numbers measure Docker too`);
  }
  const containers = postgres?.source === 'container' || redis?.source === 'container';
  const pending = new Set<() => Promise<void>>();
  let files = 0;
  return {
    options,
    tmpDir,
    postgresUrl: postgres?.url,
    redisUrl: redis?.url,
    tempPath: (name) => join(tmpDir, `${name}-${++files}.db`),
    track(dispose) {
      let done = false;
      const once = async () => {
        if (done) return;
        done = true;
        pending.delete(once);
        await dispose();
      };
      pending.add(once);
      return once;
    },
    async cleanup() {
      for (const dispose of [...pending]) await dispose().catch(() => {});
      rmSync(tmpDir, { recursive: true, force: true });
      if (containers) await stopContainers();
    },
  };
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}
