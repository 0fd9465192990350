import { describe, expect, inject, it } from 'vitest';
import { LOCAL_REDIS_URL, resolveRedis } from '../src/index.js';
import { closedPort, silentServer } from './closed-port.js';

describe('resolveRedis', () => {
  it('uses FLOW_TEST_REDIS_URL when that server answers', async () => {
    const url = inject('flowTestRedisUrl');
    await expect(resolveRedis({ env: { FLOW_TEST_REDIS_URL: url } })).resolves.toEqual({
      url,
      source: 'env',
    });
  });

  it('fails fast with a one-line explanation when FLOW_TEST_REDIS_URL does not answer', async () => {
    const port = await closedPort();
    const started = Date.now();
    const error: Error = await resolveRedis({
      env: { FLOW_TEST_REDIS_URL: `redis://127.0.0.1:${port}` },
      // A working local server must not be used instead: an explicit URL never falls through.
      localUrl: inject('flowTestRedisUrl'),
    }).catch((e) => e);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(error).toBeInstanceOf(Error);
    expect(error.message).not.toContain('\n');
    expect(error.message).toContain(`FLOW_TEST_REDIS_URL is set to redis://127.0.0.1:${port}`);
    expect(error.message).toContain('no Redis answers there');
    expect(error.message).toContain('unset FLOW_TEST_REDIS_URL');
  });

  it('gives up on a server that accepts connections but never answers, within the probe timeout', async () => {
    const hung = await silentServer();
    try {
      const started = Date.now();
      const error: Error = await resolveRedis({
        env: { FLOW_TEST_REDIS_URL: `redis://127.0.0.1:${hung.port}` },
        timeoutMs: 300,
      }).catch((e) => e);
      expect(Date.now() - started).toBeLessThan(2000);
      expect(error.message).toContain('no Redis answers there');
    } finally {
      await hung.close();
    }
  });

  it('hides the password of the URL in the explanation', async () => {
    const port = await closedPort();
    const error: Error = await resolveRedis({
      env: { FLOW_TEST_REDIS_URL: `redis://default:s3cret@127.0.0.1:${port}` },
    }).catch((e) => e);
    expect(error.message).toContain('redis://default:***@127.0.0.1');
    expect(error.message).not.toContain('s3cret');
  });

  it('finds the server on the default local port when no variable is set', async () => {
    await expect(resolveRedis({ env: {} })).resolves.toEqual({ url: LOCAL_REDIS_URL, source: 'local' });
  });

  it('says how to provide a server when none answers and containers are off', async () => {
    const port = await closedPort();
    const error: Error = await resolveRedis({
      env: {},
      localUrl: `redis://127.0.0.1:${port}`,
      containers: false,
    }).catch((e) => e);
    expect(error.message).toContain(
      'Set FLOW_TEST_REDIS_URL (e.g. FLOW_TEST_REDIS_URL=redis://127.0.0.1:6379)',
    );
    expect(error.message).toContain('start Redis on 127.0.0.1:6379');
    expect(error.message).toContain('start Docker');
  });
});
