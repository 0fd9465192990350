import { execFileSync } from 'node:child_process';
import { Redis } from 'ioredis';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import {
  type ContainerKind,
  containerImage,
  KIND_LABEL,
  RUN_LABEL,
  resolvePostgres,
  resolveRedis,
  runId,
  stopContainers,
} from '../src/index.js';

/** This run's containers of `kind`, as `docker inspect` sees them. */
function containersOf(kind: ContainerKind): { Config: { Image: string }; HostConfig: any }[] {
  const ids = execFileSync(
    'docker',
    ['ps', '-aq', '--filter', `label=${RUN_LABEL}=${runId()}`, '--filter', `label=${KIND_LABEL}=${kind}`],
    { encoding: 'utf8' },
  )
    .split('\n')
    .filter(Boolean);
  return ids.length === 0
    ? []
    : JSON.parse(execFileSync('docker', ['inspect', ...ids], { encoding: 'utf8' }));
}

function hostIps(container: { HostConfig: any }): string[] {
  return Object.values(container.HostConfig.PortBindings as Record<string, { HostIp: string }[]>).flatMap(
    (bindings) => bindings.map((b) => b.HostIp),
  );
}

// No URL and the local probe off: the resolvers can only start a container.
const noServer = { env: {}, localUrl: 'off' };

describe('the container path, with no URL and no local server', () => {
  it('starts Postgres from the chosen image on 127.0.0.1 only, and leaves nothing once stopped', async () => {
    const { url, source } = await resolvePostgres(noServer);
    expect(source).toBe('container');
    expect(new URL(url).hostname).toBe('127.0.0.1');
    const [container, ...others] = containersOf('postgres');
    expect(others).toEqual([]);
    expect(container?.Config.Image).toBe(await containerImage('postgres'));
    expect(hostIps(container!)).toEqual(['127.0.0.1']);

    const client = new pg.Client(url);
    await client.connect();
    try {
      // The entry point made the user, password and database testcontainers asked for.
      const { rows } = await client.query('SELECT current_user AS "user", current_database() AS db');
      expect(rows).toEqual([{ user: 'test', db: 'test' }]);
    } finally {
      await client.end();
    }

    await stopContainers('postgres');
    expect(containersOf('postgres')).toEqual([]);
  });

  it('starts Redis from the chosen image on 127.0.0.1 only, and leaves nothing once stopped', async () => {
    const { url, source } = await resolveRedis(noServer);
    expect(source).toBe('container');
    const [container, ...others] = containersOf('redis');
    expect(others).toEqual([]);
    expect(container?.Config.Image).toBe(await containerImage('redis'));
    expect(hostIps(container!)).toEqual(['127.0.0.1']);

    const client = new Redis(url, { lazyConnect: true });
    await client.connect();
    try {
      expect(await client.set('flow-test:probe', 'ok')).toBe('OK');
      expect(await client.get('flow-test:probe')).toBe('ok');
    } finally {
      client.disconnect();
    }

    await stopContainers('redis');
    expect(containersOf('redis')).toEqual([]);
  });

  it('takes the image from FLOW_TEST_POSTGRES_IMAGE / FLOW_TEST_REDIS_IMAGE when set', async () => {
    expect(await containerImage('postgres', { FLOW_TEST_POSTGRES_IMAGE: 'example/pg:1' })).toBe(
      'example/pg:1',
    );
    expect(await containerImage('redis', { FLOW_TEST_REDIS_IMAGE: 'example/redis:1' })).toBe(
      'example/redis:1',
    );
  });
});
