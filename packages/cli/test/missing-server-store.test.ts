import { PostgresCheckpointer } from '@flow/checkpoint-postgres';
import { RedisCheckpointer } from '@flow/checkpoint-redis';
import { deleteKeys, dropSchema, uniquePrefix, uniqueSchema } from '@flow/test-db';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { runBin } from './support/run-bin.js';

const postgresUrl = inject('flowTestPostgresUrl');
const redisUrl = inject('flowTestRedisUrl');

function withParam(url: string, name: string, value: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set(name, value);
  return parsed.toString();
}

/** Whether a store exists, asked through the backend's own read-only check (tested in its package). */
async function postgresStoreExists(schema: string): Promise<boolean> {
  const store = new PostgresCheckpointer(postgresUrl, { schema, create: false });
  try {
    return await store.exists();
  } finally {
    await store.close();
  }
}

async function redisStoreExists(prefix: string): Promise<boolean> {
  const store = new RedisCheckpointer(redisUrl, { prefix, create: false });
  try {
    return await store.exists();
  } finally {
    await store.close();
  }
}

/** Every command that only reads or removes: none of them may create the store it is pointed at. */
const READ_COMMANDS = [
  ['threads'],
  ['threads', '--json'],
  ['show', 't'],
  ['history', 't'],
  ['prune', 't', '--before-step', '1'],
  ['delete', 't', '--yes'],
];

const cases = [
  {
    kind: 'postgres',
    name: uniqueSchema(),
    url: (name: string) => withParam(postgresUrl, 'schema', name),
    created: postgresStoreExists,
    cleanup: (name: string) => dropSchema(postgresUrl, name),
  },
  {
    kind: 'redis',
    name: uniquePrefix(),
    url: (name: string) => withParam(redisUrl, 'prefix', name),
    created: redisStoreExists,
    cleanup: (name: string) => deleteKeys(redisUrl, name),
  },
];

describe.each(cases)('read commands on a $kind store that does not exist', (c) => {
  const store = c.url(c.name);
  afterAll(async () => {
    await c.cleanup(c.name);
    await c.cleanup(`${c.name}_t`);
  });

  it.each(READ_COMMANDS.map((args) => [args.join(' '), args]))(
    'flow %s says "no store at …", exits 1 and creates nothing',
    async (_, args) => {
      const result = await runBin([...args, '--store', store]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^error: no store at (postgres|redis):\/\/.* \(run "flow setup --store /);
      expect(await c.created(c.name)).toBe(false);
    },
  );

  it('copy from it says "no store at …" and creates nothing on either side', async () => {
    const target = c.url(`${c.name}_t`);
    const result = await runBin(['copy', '--from', store, '--to', target]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: no store at /);
    expect(await c.created(c.name)).toBe(false);
    expect(await c.created(`${c.name}_t`)).toBe(false);
  });

  it('flow setup creates it, and then threads finds it empty', async () => {
    expect((await runBin(['setup', '--store', store])).code).toBe(0);
    expect(await c.created(c.name)).toBe(true);
    expect(await runBin(['threads', '--store', store])).toEqual({
      code: 0,
      stdout: 'no threads\n',
      stderr: '',
    });
  });
});
