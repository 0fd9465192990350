import { describe, expect, inject, it } from 'vitest';
import {
  LOCAL_POSTGRES_URL,
  LOCAL_REDIS_URL,
  type ResolvedDatabase,
  type ResolveOptions,
  resolvePostgres,
  resolveRedis,
} from '../src/index.js';
import { closedPort, silentServer } from './support/closed-port.js';

/** One resolver and what tells its server apart: the same rules hold for both. */
interface Case {
  name: string;
  resolve: (options?: ResolveOptions) => Promise<ResolvedDatabase>;
  envVar: 'FLOW_TEST_POSTGRES_URL' | 'FLOW_TEST_REDIS_URL';
  localVar: 'FLOW_TEST_LOCAL_POSTGRES_URL' | 'FLOW_TEST_LOCAL_REDIS_URL';
  injected: 'flowTestPostgresUrl' | 'flowTestRedisUrl';
  local: string;
  /** The server's name in messages. */
  server: string;
  /** A URL of this kind on a local port, with a password when given. */
  urlAt: (port: number, password?: string) => string;
  example: string;
  /** How `urlAt(port, 's3cret')` starts once its password is hidden. */
  redacted: string;
}

const cases: Case[] = [
  {
    name: 'resolvePostgres',
    resolve: resolvePostgres,
    envVar: 'FLOW_TEST_POSTGRES_URL',
    localVar: 'FLOW_TEST_LOCAL_POSTGRES_URL',
    injected: 'flowTestPostgresUrl',
    local: LOCAL_POSTGRES_URL,
    server: 'Postgres',
    urlAt: (port, password) =>
      `postgres://postgres${password === undefined ? '' : `:${password}`}@127.0.0.1:${port}/postgres`,
    example: 'postgres://postgres@127.0.0.1:5432/postgres',
    redacted: 'postgres://postgres:***@127.0.0.1',
  },
  {
    name: 'resolveRedis',
    resolve: resolveRedis,
    envVar: 'FLOW_TEST_REDIS_URL',
    localVar: 'FLOW_TEST_LOCAL_REDIS_URL',
    injected: 'flowTestRedisUrl',
    local: LOCAL_REDIS_URL,
    server: 'Redis',
    urlAt: (port, password) =>
      `redis://${password === undefined ? '' : `default:${password}@`}127.0.0.1:${port}`,
    example: 'redis://127.0.0.1:6379',
    redacted: 'redis://default:***@127.0.0.1',
  },
];

for (const { name, resolve, envVar, localVar, injected, local, server, urlAt, example, redacted } of cases) {
  describe(name, () => {
    it(`uses ${envVar} when that server answers`, async () => {
      const url = inject(injected);
      await expect(resolve({ env: { [envVar]: url } })).resolves.toEqual({ url, source: 'env' });
    });

    it(`fails fast with a one-line explanation when ${envVar} does not answer`, async () => {
      const port = await closedPort();
      const started = Date.now();
      const error: Error = await resolve({
        env: { [envVar]: urlAt(port) },
        // A working local server must not be used instead: an explicit URL never falls through.
        localUrl: inject(injected),
      }).catch((e) => e);
      expect(Date.now() - started).toBeLessThan(3000);
      expect(error).toBeInstanceOf(Error);
      expect(error.message).not.toContain('\n');
      expect(error.message).toContain(`${envVar} is set to ${urlAt(port)}`);
      expect(error.message).toContain(`no ${server} answers there`);
      expect(error.message).toContain(`unset ${envVar}`);
    });

    it('gives up on a server that accepts connections but never answers, within the probe timeout', async () => {
      const hung = await silentServer();
      try {
        const started = Date.now();
        const error: Error = await resolve({ env: { [envVar]: urlAt(hung.port) }, timeoutMs: 300 }).catch(
          (e) => e,
        );
        expect(Date.now() - started).toBeLessThan(2000);
        expect(error.message).toContain(`no ${server} answers there`);
      } finally {
        await hung.close();
      }
    });

    it('hides the password of the URL in the explanation', async () => {
      const port = await closedPort();
      const error: Error = await resolve({ env: { [envVar]: urlAt(port, 's3cret') } }).catch((e) => e);
      expect(error.message).toContain(redacted);
      expect(error.message).not.toContain('s3cret');
    });

    it('finds the server on the default local port when no variable is set', async () => {
      await expect(resolve({ env: {} })).resolves.toEqual({ url: local, source: 'local' });
    });

    it(`tries ${localVar} instead of the default local port when set`, async () => {
      const url = inject(injected);
      await expect(resolve({ env: { [localVar]: url } })).resolves.toEqual({ url, source: 'local' });
      const port = await closedPort();
      const error: Error = await resolve({ env: { [localVar]: urlAt(port) }, containers: false }).catch(
        (e) => e,
      );
      expect(error.message).toContain(`nothing answers at ${urlAt(port)}`);
    });

    it(`skips the local server when ${localVar}=off, even though one answers`, async () => {
      const error: Error = await resolve({ env: { [localVar]: 'off' }, containers: false }).catch((e) => e);
      expect(error.message).toContain(`the local probe is off (${localVar}=off)`);
      expect(error.message).toContain('start Docker');
    });

    it('says how to provide a server when none answers and containers are off', async () => {
      const port = await closedPort();
      const error: Error = await resolve({ env: {}, localUrl: urlAt(port), containers: false }).catch(
        (e) => e,
      );
      expect(error.message).toContain(`Set ${envVar} (e.g. ${envVar}=${example})`);
      expect(error.message).toContain(`start ${server} on 127.0.0.1:${new URL(example).port}`);
      expect(error.message).toContain('start Docker');
    });
  });
}
