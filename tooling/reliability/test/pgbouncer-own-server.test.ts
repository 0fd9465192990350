import { startPgBouncer } from '@flow/test-db';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { type OwnServer, startPostgresServer } from './support/own-servers.js';

// Here rather than in @flow/test-db because it needs a second Postgres server, which this package's
// own-servers helper starts.

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

  it('fronts the server of the run that started it, beside one started for another server', async () => {
    const main = inject('flowTestPostgresUrl');
    other = await startPostgresServer();
    // As two cells of the version matrix running at once would, each against its own server.
    const [first, second] = await Promise.all([startPgBouncer(main), startPgBouncer(other.url)]);
    try {
      expect(await startedAt(first.url)).toBe(await startedAt(main));
      expect(await startedAt(second.url)).toBe(await startedAt(other.url));
      expect(await startedAt(second.url)).not.toBe(await startedAt(main));
    } finally {
      await second.stop();
      await first.stop();
    }
  });
});
