import { describe, expect, inject, it } from 'vitest';
import { LOCAL_POSTGRES_URL, resolvePostgres } from '../src/index.js';
import { closedPort, silentServer } from './closed-port.js';

describe('resolvePostgres', () => {
  it('uses FLOW_TEST_POSTGRES_URL when that server answers', async () => {
    const url = inject('flowTestPostgresUrl');
    await expect(resolvePostgres({ env: { FLOW_TEST_POSTGRES_URL: url } })).resolves.toEqual({
      url,
      source: 'env',
    });
  });

  it('fails fast with a one-line explanation when FLOW_TEST_POSTGRES_URL does not answer', async () => {
    const port = await closedPort();
    const started = Date.now();
    const error: Error = await resolvePostgres({
      env: { FLOW_TEST_POSTGRES_URL: `postgres://postgres@127.0.0.1:${port}/postgres` },
      // A working local server must not be used instead: an explicit URL never falls through.
      localUrl: inject('flowTestPostgresUrl'),
    }).catch((e) => e);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(error).toBeInstanceOf(Error);
    expect(error.message).not.toContain('\n');
    expect(error.message).toContain(
      `FLOW_TEST_POSTGRES_URL is set to postgres://postgres@127.0.0.1:${port}/postgres`,
    );
    expect(error.message).toContain('no Postgres answers there');
    expect(error.message).toContain('unset FLOW_TEST_POSTGRES_URL');
  });

  it('gives up on a server that accepts connections but never answers, within the probe timeout', async () => {
    const hung = await silentServer();
    try {
      const started = Date.now();
      const error: Error = await resolvePostgres({
        env: { FLOW_TEST_POSTGRES_URL: `postgres://postgres@127.0.0.1:${hung.port}/postgres` },
        timeoutMs: 300,
      }).catch((e) => e);
      expect(Date.now() - started).toBeLessThan(2000);
      expect(error.message).toContain('no Postgres answers there');
    } finally {
      await hung.close();
    }
  });

  it('hides the password of the URL in the explanation', async () => {
    const port = await closedPort();
    const error: Error = await resolvePostgres({
      env: { FLOW_TEST_POSTGRES_URL: `postgres://postgres:s3cret@127.0.0.1:${port}/postgres` },
    }).catch((e) => e);
    expect(error.message).toContain('postgres://postgres:***@127.0.0.1');
    expect(error.message).not.toContain('s3cret');
  });

  it('finds the server on the default local port when no variable is set', async () => {
    await expect(resolvePostgres({ env: {} })).resolves.toEqual({ url: LOCAL_POSTGRES_URL, source: 'local' });
  });

  it('says how to provide a server when none answers and containers are off', async () => {
    const port = await closedPort();
    const error: Error = await resolvePostgres({
      env: {},
      localUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
      containers: false,
    }).catch((e) => e);
    expect(error.message).toContain(
      'Set FLOW_TEST_POSTGRES_URL (e.g. FLOW_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres)',
    );
    expect(error.message).toContain('start Postgres on 127.0.0.1:5432');
    expect(error.message).toContain('start Docker');
  });
});
