import { spawnSync } from 'node:child_process';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { storedRecord } from '@flow/checkpoint-conformance';
import { Checkpoint } from '@flow/core';
import { describe, expect, it } from 'vitest';
import { FileCheckpointer } from '../src/index.js';
import { stageName, stepFileName } from '../src/layout.js';
import { encodeStepFile } from '../src/step-file.js';
import { threadName } from '../src/thread-name.js';
import { createWriteFiles } from '../src/write-files.js';
import { cp, useTempBase, walk } from './support/files.js';

const t = useTempBase();

const threadDir = (thread: string) => join(t.store, 'threads', threadName(thread));

/** The lock a process killed mid-put leaves behind: its pid is gone, so the next locker breaks it. */
async function plantDeadLock(thread: string): Promise<void> {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  const owner = { pid: Number(child.stdout), host: hostname(), token: 'x', at: new Date().toISOString() };
  await writeFile(join(t.store, 'locks', `${threadName(thread)}.lock`), JSON.stringify(owner));
}

/** A staging directory as a put leaves it once its writes are fsynced: `[node, key, value]` each. */
async function plantStage(thread: string, step: number, writes: [string, string, string][]): Promise<string> {
  const stage = stageName(step);
  await mkdir(join(threadDir(thread), stage), { recursive: true, mode: 0o700 });
  await createWriteFiles(
    join(threadDir(thread), stage),
    writes.map(([node, key, value]) => ({ node, key, value: JSON.stringify(value) })),
  );
  return stage;
}

async function ready(): Promise<FileCheckpointer> {
  const fc = new FileCheckpointer(t.store);
  await fc.setup();
  return fc;
}

describe('a put with writes killed before its step file landed', () => {
  it('leaves writes nobody sees, which the next locker removes', async () => {
    const fc = await ready();
    await fc.put(cp('t', 0));
    await plantStage('t', 1, [['a', 'k', 'lost']]);
    await plantDeadLock('t');
    // Neither the checkpoint nor its writes are visible: both or neither.
    expect(await fc.get('t', 1)).toBeUndefined();
    expect(await fc.getWrites('t', 1)).toEqual([]);
    // The next put breaks the dead lock, removes the orphan stage and stores its own first values.
    await fc.put(cp('t', 1), { ifRevision: 0, writes: [{ node: 'a', key: 'k', value: 'mine' }] });
    expect(await fc.getWrites('t', 1)).toEqual([{ node: 'a', key: 'k', value: 'mine' }]);
    expect((await readdir(threadDir('t'))).filter((n) => n.startsWith('.'))).toEqual([]);
    await fc.close();
  });
});

describe('a put with writes killed after its step file, before publishing', () => {
  async function committedUnpublished(): Promise<FileCheckpointer> {
    const fc = await ready();
    await fc.put(cp('t', 0));
    const stage = await plantStage('t', 1, [
      ['a', 'k', 'staged'],
      ['b', 'k', 'also'],
    ]);
    const record = storedRecord('t', 1, { state: '{}' });
    await writeFile(join(threadDir('t'), stepFileName(1)), encodeStepFile(record, 1, true, stage), {
      mode: 0o600,
    });
    await plantDeadLock('t');
    return fc;
  }

  it('shows the checkpoint with its writes', async () => {
    const fc = await committedUnpublished();
    expect((await fc.get('t'))?.step).toBe(1);
    expect(await fc.getWrites('t', 1)).toEqual([
      { node: 'a', key: 'k', value: 'staged' },
      { node: 'b', key: 'k', value: 'also' },
    ]);
    await fc.close();
  });

  it('keeps the staged values first when later writes come for the same keys', async () => {
    const fc = await committedUnpublished();
    await fc.putWrites('t', 1, [
      { node: 'a', key: 'k', value: 'later' },
      { node: 'c', key: 'k', value: 'new' },
    ]);
    expect(await fc.getWrites('t', 1)).toEqual([
      { node: 'a', key: 'k', value: 'staged' },
      { node: 'b', key: 'k', value: 'also' },
      { node: 'c', key: 'k', value: 'new' },
    ]);
    expect((await readdir(threadDir('t'))).filter((n) => n.startsWith('.'))).toEqual([]);
    await fc.close();
  });

  it('keeps the writes when the step is rewritten', async () => {
    const fc = await committedUnpublished();
    await fc.put(cp('t', 1, { again: true }), { ifRevision: 1 });
    expect((await fc.getWrites('t', 1)).map((w) => w.value)).toEqual(['staged', 'also']);
    await fc.close();
  });
});

describe('writes on disk', () => {
  it('never take a path component from node or key, and are private', async () => {
    const fc = await ready();
    const hostile = ['../../escape', '/etc/passwd', '.', '..', 'a\\b', 'CON', 'x'.repeat(512), 'Ab', 'aB'];
    const writes = hostile.flatMap((node) => hostile.map((key) => ({ node, key, value: [node, key] })));
    await fc.put(cp('t', 0), { writes: writes.slice(0, 40) });
    await fc.putWrites('t', 0, writes.slice(40));
    const back = await fc.getWrites('t', 0);
    expect(back).toHaveLength(hostile.length ** 2);
    for (const w of back) expect(w.value).toEqual([w.node, w.key]);
    // Everything sits under the store, named by hashes, 0o700 / 0o600.
    const entries = await walk(t.store);
    expect(entries.every((e) => e.path.startsWith(t.store))).toBe(true);
    const writeFiles = entries.filter((e) => e.path.includes(`${join('writes', '0000000000')}/`));
    expect(writeFiles).toHaveLength(hostile.length ** 2);
    for (const e of writeFiles) expect(e.name).toMatch(/^[0-9a-f]{64}\.json$/);
    for (const e of entries) expect(e.mode).toBe(e.dir ? 0o700 : 0o600);
    await fc.close();
  });

  it('go with their step on prune, and with the lease on deleteThread', async () => {
    const fc = await ready();
    for (let step = 0; step < 3; step++) {
      await fc.put(cp('t', step), { writes: [{ node: 'n', key: 'k', value: step }] });
    }
    await fc.acquireLease('t', { owner: 'me', ttlMs: 60_000 });
    expect(await fc.prune('t', { beforeStep: 2 })).toBe(2);
    expect(await readdir(join(threadDir('t'), 'writes'))).toEqual(['0000000002']);
    expect(await fc.getWrites('t', 2)).toEqual([{ node: 'n', key: 'k', value: 2 }]);
    expect(await fc.deleteThread('t')).toBe(1);
    expect(await readdir(join(t.store, 'threads'))).toEqual([]);
    expect(await fc.getLease('t')).toBeUndefined();
    await fc.close();
  });
});

describe('files written before runs recorded errors and meta', () => {
  it('read as not failed, with empty meta', async () => {
    const fc = await ready();
    await mkdir(threadDir('old'), { mode: 0o700 });
    const state = '{"n":1}';
    const head = {
      format: 1,
      thread: 'old',
      step: 4,
      revision: 2,
      ts: '2026-01-01T00:00:00.000Z',
      next: ['work'],
      interrupted: false,
      interruptNode: null,
      text: false,
      payloadBytes: 4,
      stateBytes: state.length,
    };
    const stepFile = `${JSON.stringify(head).slice(0, -1)},"interruptPayload":null,"state":${state}}\n`;
    await writeFile(join(threadDir('old'), stepFileName(4)), stepFile, { mode: 0o600 });
    const summary = { format: 1, thread: 'old', latestStep: 4, interrupted: false, done: false, ts: head.ts };
    await writeFile(join(threadDir('old'), 'thread.json'), JSON.stringify(summary), { mode: 0o600 });
    const got = await fc.get('old');
    expect(got).toMatchObject({ step: 4, revision: 2, state: { n: 1 }, error: null, meta: {} });
    expect(await fc.listThreads({ status: 'running' })).toMatchObject([
      { thread: 'old', latestStep: 4, failed: false, error: null },
    ]);
    // The next put writes the current format, which keeps the error for listThreads.
    await fc.put(got!.with({ step: 5, error: { node: 'work', message: 'boom' } }));
    expect(await fc.listThreads({ status: 'failed' })).toMatchObject([
      { thread: 'old', latestStep: 5, failed: true, error: { node: 'work', message: 'boom' } },
    ]);
    await fc.close();
  });
});

it('a checkpoint put with writes reads back with them through a second instance', async () => {
  const fc = await ready();
  await fc.put(new Checkpoint({ thread: 't', step: 0, state: {}, next: ['a'] }), {
    writes: [{ node: 'a', key: 'out', value: { ok: true } }],
  });
  const other = new FileCheckpointer(t.store);
  expect(await other.getWrites('t', 0)).toEqual([{ node: 'a', key: 'out', value: { ok: true } }]);
  await Promise.all([fc.close(), other.close()]);
});
