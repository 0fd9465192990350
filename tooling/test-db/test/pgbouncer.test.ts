import { describe, expect, inject, it } from 'vitest';
import { ensurePgBouncer } from '../src/pgbouncer.js';
import { probePostgres } from '../src/probe.js';

const server = inject('flowTestPostgresUrl');
// A port of its own, so this test never stops a bouncer the Postgres suites use.
const PORT = 7011;

describe('ensurePgBouncer', () => {
  it('starts a transaction-mode bouncer, reuses it when it answers, and stop() ends only the one it started', async () => {
    const first = await ensurePgBouncer(server, PORT);
    try {
      expect(first.url).toMatch(/^postgres:\/\/[^@]*@127\.0\.0\.1:7011\//);
      await probePostgres(first.url);
      const again = await ensurePgBouncer(server, PORT);
      expect(again.url).toBe(first.url);
      again.stop();
      await probePostgres(first.url);
    } finally {
      first.stop();
    }
    let down = false;
    for (let i = 0; i < 30 && !down; i++) {
      down = await probePostgres(first.url, 300).then(
        () => false,
        () => true,
      );
      if (!down) await new Promise((r) => setTimeout(r, 100));
    }
    expect(down).toBe(true);
  });
});
