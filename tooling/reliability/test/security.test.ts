import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { HOSTILE_IDS } from '@flow/checkpoint-conformance';
import { FileCheckpointer } from '@flow/checkpoint-file';
import { PostgresCheckpointer } from '@flow/checkpoint-postgres';
import { RedisCheckpointer } from '@flow/checkpoint-redis';
import { Checkpoint, isFlowError } from '@flow/core';
import { deleteKeys, dropSchema, uniquePrefix, uniqueSchema } from '@flow/test-db';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { validId } from './support/arbitraries.js';
import { startChild } from './support/children.js';
import { expectLine, killAtRandom } from './support/crash.js';
import { count } from './support/figures.js';
import { serverUrls } from './support/stores.js';

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'flow-rel-sec-'));
  temps.push(dir);
  return dir;
}

/** Every entry under `root` (root excluded) with its type and permission bits, without following links. */
function walk(root: string): Array<{ path: string; kind: 'dir' | 'file' | 'link'; mode: number }> {
  const out: Array<{ path: string; kind: 'dir' | 'file' | 'link'; mode: number }> = [];
  for (const name of readdirSync(root)) {
    const path = join(root, name);
    const st = lstatSync(path);
    const kind = st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'dir' : 'file';
    out.push({ path, kind, mode: st.mode & 0o777 });
    if (kind === 'dir') out.push(...walk(path));
  }
  return out;
}

function invalidArgument(make: () => unknown): unknown {
  try {
    make();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('file modes under umask 0', () => {
  it('file: the root and everything beneath it are 0700 / 0600, leftovers of killed writers included', async () => {
    const base = tempDir();
    const root = join(base, 'missing', 'parents', 'store');
    const threads = ['plain', '../escape', 'a/b'];
    for (let i = 0; i < 3; i++) {
      const child = startChild('umask-0.mjs', ['crash-writer.mjs', 'file', root, ...threads]);
      await killAtRandom(child, /^ok /);
    }
    const ops = startChild('umask-0.mjs', ['store-ops.mjs', 'file', root, 'x', 'y']);
    await expectLine(ops, /^done$/);
    expect((await ops.exited).code).toBe(0);
    const entries = [{ path: root, kind: 'dir' as const, mode: lstatSync(root).mode & 0o777 }, ...walk(root)];
    expect(entries.length).toBeGreaterThan(10);
    const wrong = entries.filter((e) => e.kind === 'link' || e.mode !== (e.kind === 'dir' ? 0o700 : 0o600));
    expect(wrong.map((e) => `${e.kind} ${relative(base, e.path)} ${e.mode.toString(8)}`)).toEqual([]);
    count('security: modes', 'inputs tried', entries.length);
  });

  it('sqlite: the database and its -wal and -shm are 0600', async () => {
    const base = tempDir();
    const path = join(base, 'flow.db');
    const ops = startChild('umask-0.mjs', ['store-ops.mjs', 'sqlite', path, 'x', 'y']);
    await expectLine(ops, /^done$/);
    const child = startChild('umask-0.mjs', ['crash-writer.mjs', 'sqlite', path, 't']);
    await expectLine(child, /^ok /);
    const files = walk(base);
    child.process.kill('SIGKILL');
    await child.exited;
    expect(files.map((e) => [relative(base, e.path), e.mode.toString(8)])).toEqual([
      ['flow.db', '600'],
      ['flow.db-shm', '600'],
      ['flow.db-wal', '600'],
    ]);
    count('security: modes', 'inputs tried', files.length);
  });
});

describe('file: no thread id reaches outside the root', () => {
  it('hostile and random ids: every entry lands in threads/<name> or locks/, names are hashes, nothing outside changes', async () => {
    const base = tempDir();
    const root = join(base, 'store');
    // Bait beside the root: files an escaping id would overwrite or delete.
    mkdirSync(join(base, 'threads'));
    writeFileSync(join(base, 'x'), 'bait');
    writeFileSync(join(base, 'threads', 'x'), 'bait');
    const ids = [
      ...HOSTILE_IDS,
      '../x',
      '../../x',
      '../threads/x',
      '/etc/passwd',
      '..\\..\\x',
      'threads/../../x',
      'locks/../../x',
      '.tmp-evil',
      '.trash-1',
      'thread.json',
      '0000000000.json',
      ...fc.sample(validId, { numRuns: 150, seed: 42 }),
    ];
    const unique = [...new Set(ids)];
    const cp = new FileCheckpointer(root);
    for (const [i, id] of unique.entries()) {
      await cp.put(new Checkpoint({ thread: id, step: 0, state: i, next: ['n'] }));
      await cp.put(new Checkpoint({ thread: id, step: 1, state: i, next: ['n'] }));
      await cp.prune(id, { beforeStep: 1 });
      if (i % 2 === 1) expect(await cp.deleteThread(id)).toBe(1);
    }
    const kept = unique.filter((_, i) => i % 2 === 0);
    expect((await cp.listThreads()).map((t) => t.thread).sort()).toEqual([...kept].sort());
    for (const id of kept) expect((await cp.get(id))?.thread).toBe(id);
    await cp.close();
    expect(readdirSync(base).sort()).toEqual(['store', 'threads', 'x']);
    expect(readdirSync(join(base, 'threads'))).toEqual(['x']);
    for (const e of walk(root)) {
      expect(e.kind, e.path).not.toBe('link');
      const [top, name, file, ...deeper] = relative(root, e.path).split('/');
      expect(deeper, e.path).toEqual([]);
      expect(['threads', 'locks'], e.path).toContain(top);
      if (top === 'threads' && name !== undefined) expect(name).toMatch(/^[A-Za-z0-9_-]{1,40}-[0-9a-f]{64}$/);
      if (file !== undefined) expect(file).toMatch(/^(\d{10}\.json|thread\.json)$/);
    }
    count('security: paths', 'inputs tried', unique.length);
  });
});

describe('postgres: schema names', () => {
  const url = serverUrls().postgres;
  const made: string[] = [];
  afterAll(async () => {
    for (const schema of made) await dropSchema(url, schema);
  });

  // Other suites create and drop schemas in parallel, so a global count would race; what must hold is that no
  // hostile name became a schema and that the schema an injection would target is still there.
  async function schemasNamed(names: string[]): Promise<string[]> {
    const client = new pg.Client(url);
    await client.connect();
    try {
      const { rows } = await client.query(
        'SELECT nspname FROM pg_namespace WHERE nspname = ANY($1) ORDER BY nspname',
        [names],
      );
      return rows.map((row: { nspname: string }) => row.nspname);
    } finally {
      await client.end();
    }
  }

  it('a name that is not a plain identifier is refused by the constructor, before any SQL runs', async () => {
    const hostile = [
      'flow"; DROP SCHEMA public CASCADE; --',
      "flow'; DROP TABLE x; --",
      'flow.checkpoints',
      'a b',
      'a-b',
      '1flow',
      '',
      'x'.repeat(64),
      'é',
      'flow\u0000',
      'pg_temp;',
      ...fc.sample(
        fc.string({ unit: 'binary', maxLength: 70 }).filter((s) => !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(s)),
        { numRuns: 200, seed: 7 },
      ),
    ];
    for (const schema of hostile) {
      const error = invalidArgument(() => new PostgresCheckpointer(url, { schema }));
      expect(isFlowError(error, 'INVALID_ARGUMENT'), JSON.stringify(schema)).toBe(true);
    }
    // Postgres text cannot hold NUL, so those names could never have been created.
    const storable = hostile.filter((name) => !name.includes('\u0000'));
    expect(await schemasNamed(storable)).toEqual([]);
    expect(await schemasNamed(['public'])).toEqual(['public']);
    count('security: names', 'inputs tried', hostile.length);
  });

  it('names that differ only in case are distinct schemas, fully isolated', async () => {
    const lower = uniqueSchema();
    const names = [lower, lower.toUpperCase(), `F${lower.slice(1)}`];
    made.push(...names);
    const cps = names.map((schema) => new PostgresCheckpointer(url, { schema }));
    for (const [i, cp] of cps.entries())
      await cp.put(new Checkpoint({ thread: 'same id', step: 0, state: names[i] }));
    for (const [i, cp] of cps.entries()) {
      expect((await cp.get('same id'))?.state).toBe(names[i]);
      expect(await cp.listThreads()).toHaveLength(1);
    }
    expect(await cps[0]!.deleteThread('same id')).toBe(1);
    expect((await cps[1]!.get('same id'))?.state).toBe(names[1]);
    for (const cp of cps) await cp.close();
  });
});

describe('redis: key prefixes', () => {
  const url = serverUrls().redis;
  const base = uniquePrefix();
  afterAll(() => deleteKeys(url, base));

  it('a prefix with glob, space, control or separator characters is refused by the constructor', () => {
    const hostile = [
      'flow*',
      'flow?',
      'flow[ab]',
      'a b',
      'a\r\nFLUSHALL',
      '',
      'x'.repeat(65),
      'a|b',
      '{tag}',
      'é',
      ...fc.sample(
        fc.string({ unit: 'binary', maxLength: 70 }).filter((s) => !/^[A-Za-z0-9_:.-]{1,64}$/.test(s)),
        { numRuns: 200, seed: 11 },
      ),
    ];
    for (const prefix of hostile) {
      const error = invalidArgument(() => new RedisCheckpointer(url, { prefix }));
      expect(isFlowError(error, 'INVALID_ARGUMENT'), JSON.stringify(prefix)).toBe(true);
    }
    count('security: names', 'inputs tried', hostile.length);
  });

  it('prefixes that start one another, with ids built to collide with their keys, stay fully isolated', async () => {
    const prefixes = [base, `${base}:`, `${base}:x`, `${base}::cp`, `${base}.`, `${base}-`];
    const ids = ['x', ':x', 'cp|x', '|x', '*', ':cp|x', 'x:cp'];
    const cps = prefixes.map((prefix) => new RedisCheckpointer(url, { prefix }));
    for (const [i, cp] of cps.entries()) {
      for (const id of ids)
        await cp.put(new Checkpoint({ thread: id, step: 0, state: prefixes[i], next: ['n'] }));
    }
    expect(await cps[0]!.deleteThread('x')).toBe(1);
    expect(await cps[0]!.prune(':x', { beforeStep: 5 })).toBe(0);
    for (const [i, cp] of cps.entries()) {
      const expected = i === 0 ? ids.filter((id) => id !== 'x') : ids;
      expect((await cp.listThreads()).map((t) => t.thread).sort(), prefixes[i]).toEqual([...expected].sort());
      for (const id of expected) expect((await cp.get(id))?.state, `${prefixes[i]} ${id}`).toBe(prefixes[i]);
    }
    for (const cp of cps) await cp.close();
    count('security: names', 'inputs tried', prefixes.length * ids.length);
  });
});
