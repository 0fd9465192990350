import {
  type CheckpointerHarness,
  type ConformanceSuite,
  closeSuite,
  damagedStorageSuite,
  durabilitySuite,
  errorsSuite,
  failedRunsSuite,
  leasesSuite,
  linearStorageSuite,
  listingSuite,
  listThreadsSuite,
  otherReleasesSuite,
  processRacesSuite,
  putGetSuite,
  racesSuite,
  refusedPutsSuite,
  registerSuite,
  retentionSuite,
  revisionsSuite,
  serializationSuite,
  setupSuite,
  threadIdsSuite,
  writesSuite,
} from '@flow/checkpoint-conformance';
import type pg from 'pg';
import { describe } from 'vitest';
import { PostgresCheckpointer } from '../../src/index.js';
import { quoteIdent } from '../../src/quote.js';
import { earlierReleaseStore } from './earlier-release.js';
import { chunkCount, dropSchema, freshCheckpointer, newPool, uniqueSchema, url } from './stores.js';

/** Runs `work` on a pool of the test's own, ended after it. */
async function withPool<T>(work: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = newPool(1);
  try {
    return await work(pool);
  } finally {
    await pool.end();
  }
}

/** A fresh schema as the release of schema `version` left it (its version table still `schema_migrations`). */
function earlierRelease(version: number) {
  return async () => {
    const schema = uniqueSchema();
    await withPool((pool) => earlierReleaseStore(pool, quoteIdent(schema), version));
    return new PostgresCheckpointer(url, { schema });
  };
}

/**
 * Makes Postgres refuse every new checkpoint row of `thread` with a trigger of the schema: `BEFORE INSERT` fails
 * the statement; a constraint trigger `DEFERRABLE INITIALLY DEFERRED` fails only at COMMIT.
 */
function refuseWith(kind: 'statement' | 'commit') {
  return async (cp: PostgresCheckpointer, thread: string) => {
    const s = quoteIdent(cp.schema);
    const when = `FOR EACH ROW WHEN (NEW.thread = '${thread.replaceAll("'", "''")}')`;
    const trigger =
      kind === 'statement'
        ? `CREATE TRIGGER kit_refuse BEFORE INSERT ON ${s}.checkpoints ${when}`
        : `CREATE CONSTRAINT TRIGGER kit_refuse AFTER INSERT ON ${s}.checkpoints DEFERRABLE INITIALLY DEFERRED ${when}`;
    await withPool((pool) =>
      pool.query(`CREATE FUNCTION ${s}.kit_refuse() RETURNS trigger LANGUAGE plpgsql
        AS $$ BEGIN RAISE EXCEPTION 'refused by a trigger'; END $$;
        ${trigger} EXECUTE FUNCTION ${s}.kit_refuse();`),
    );
  };
}

/** Sets one column of one checkpoint row by hand, through a pool of the test's own. */
function editColumn(set: string) {
  return async (cp: PostgresCheckpointer, at: { thread: string; step: number }) => {
    const { rowCount } = await withPool((pool) =>
      pool.query(`UPDATE ${quoteIdent(cp.schema)}.checkpoints SET ${set} WHERE thread = $1 AND step = $2`, [
        at.thread,
        at.step,
      ]),
    );
    if (rowCount !== 1) throw new Error(`no row to damage at ${at.thread} step ${at.step}`);
  };
}

/**
 * The kit, split over three test files so vitest runs them in parallel workers: each test builds and drops a
 * schema, which is disk-bound on the server, not CPU-bound here. conformance.test.ts checks that the parts
 * cover every suite the kit has.
 */
export const PARTS: Record<'core' | 'threads' | 'lifecycle' | 'protocol', readonly ConformanceSuite[]> = {
  core: [putGetSuite, revisionsSuite, racesSuite, listingSuite],
  threads: [listThreadsSuite, retentionSuite, linearStorageSuite, threadIdsSuite],
  lifecycle: [
    serializationSuite,
    errorsSuite,
    setupSuite,
    otherReleasesSuite,
    durabilitySuite,
    processRacesSuite,
    closeSuite,
  ],
  protocol: [writesSuite, leasesSuite, failedRunsSuite, damagedStorageSuite, refusedPutsSuite],
};

export const harness: CheckpointerHarness<PostgresCheckpointer> = {
  // A fresh schema per instance; reopen is a new instance with a new pool on the same schema, and the kit's
  // child processes open the built package (dist/, built by the global setup when stale) on it.
  create: async () => freshCheckpointer(),
  reopen: async (cp) => new PostgresCheckpointer(url, { schema: cp.schema }),
  reopenWith: async (cp, options) => new PostgresCheckpointer(url, { schema: cp.schema, ...options }),
  countChunks: (cp, thread) => chunkCount(cp.schema, thread),
  openInChild: (cp) => ({
    module: new URL('../../dist/index.js', import.meta.url),
    export: 'PostgresCheckpointer',
    args: [url, { schema: cp.schema }],
  }),
  cleanup: (cp) => dropSchema(url, cp.schema),
  // A column edited by hand: JSONB keeps state valid JSON, so the damage there is a tag no serializer knows.
  damage: {
    'a state with an unknown value tag': editColumn(`state = '{"$flow": "no-such-tag"}'::jsonb`),
    'meta that is not JSON': editColumn(`meta = 'not json'`),
    'a run error that is not JSON': editColumn(`error = '{"node":'`),
  },
  refuse: {
    'a trigger that fails the statement': refuseWith('statement'),
    'a deferred constraint trigger that fails the COMMIT': refuseWith('commit'),
  },
  // Schemas built by the migrations of each earlier release, as it recorded them.
  earlierReleases: {
    'schema 1': earlierRelease(1),
    'schema 2': earlierRelease(2),
    'schema 3': earlierRelease(3),
    'schema 4': earlierRelease(4),
    'schema 5': earlierRelease(5),
    'schema 6': earlierRelease(6),
  },
  // A schema set up by this release, with a newer release's version recorded by hand.
  newerRelease: async () => {
    const current = freshCheckpointer();
    await current.setup();
    await current.close();
    await withPool((pool) =>
      pool.query(
        `INSERT INTO ${quoteIdent(current.schema)}.migrations (version, name) VALUES (1000, 'a newer release')`,
      ),
    );
    return new PostgresCheckpointer(url, { schema: current.schema });
  },
  capabilities: { writes: true, leases: true, storeClock: true, failedRuns: true },
};

/** Registers one part of the kit, under the same `describe('postgres')` as describeCheckpointer would. */
export function describePart(part: keyof typeof PARTS): void {
  describe('postgres', () => {
    for (const suite of PARTS[part]) registerSuite(suite, harness as CheckpointerHarness);
  });
}
