import { ensurePgBouncer } from '@flow/test-db';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { type OwnServer, startPostgresServer } from './support/own-servers.js';

// Here rather than in @flow/test-db because it needs a second Postgres server, which this package's
// own-servers helper starts. A port of its own, so the Postgres suites' bouncer on 7010 is never touched.
const PORT = 7013;

async function startedAt(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ t: string }>('SELECT pg_postmaster_start_time()::text AS t');
    return rows[0]!.t;
  } finally {
    await client.end();
  }
}

describe('the test PgBouncer', () => {
  let other: OwnServer | undefined;
  afterAll(async () => {
    await other?.destroy();
  });

  it('is reused only when it fronts this run’s server: one left fronting another server is replaced', async () => {
    const main = inject('flowTestPostgresUrl');
    const first = await ensurePgBouncer(main, PORT);
    other = await startPostgresServer();
    // As a matrix cell after another would: a bouncer is up on the port, but in front of the earlier server.
    const second = await ensurePgBouncer(other.url, PORT);
    try {
      expect(await startedAt(second.url)).toBe(await startedAt(other.url));
      expect(await startedAt(second.url)).not.toBe(await startedAt(main));
    } finally {
      second.stop();
      first.stop();
    }
  });
});
