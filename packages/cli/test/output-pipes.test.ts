import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteCheckpointer } from '@flow/checkpoint-sqlite';
import { Checkpoint } from '@flow/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from './support/run-bin.js';

const THREADS = 2000;

/** How a run of the bin ended, with what its reader got. */
interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the bin with piped streams. `readStdoutAfterMs` leaves stdout unread that long (a slow reader: the
 * pipe fills and the bin's writes wait); `closeStderr` / `closeStdoutAfterFirstChunk` close the reading end
 * early, as `2>&1 | head -1` or `| head -1` do.
 */
function run(
  args: readonly string[],
  opts: { readStdoutAfterMs?: number; closeStderr?: boolean; closeStdoutAfterFirstChunk?: boolean } = {},
): Promise<Ended> {
  const env = { ...process.env };
  delete env.FLOW_STORE;
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  if (opts.closeStderr) child.stderr.destroy();
  else child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  if (opts.readStdoutAfterMs !== undefined) {
    child.stdout.pause();
    setTimeout(() => child.stdout.resume(), opts.readStdoutAfterMs);
  }
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk;
    if (opts.closeStdoutAfterFirstChunk) child.stdout.destroy();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`flow ${args.join(' ')} did not exit`));
    }, 20_000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

describe('output through pipes', () => {
  let dir: string;
  let store: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'flow-cli-pipes-'));
    const path = join(dir, 'many.db');
    store = `sqlite:${path}`;
    const cp = new SqliteCheckpointer(path);
    for (let i = 0; i < THREADS; i++) {
      await cp.put(new Checkpoint({ thread: `thread-${String(i).padStart(5, '0')}`, step: 0, state: { i } }));
    }
    await cp.close();
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('a slow reader still gets the whole document, and the bin exits 0 once it is read', async () => {
    // The reader starts after 3 s: longer than any exit timer the bin might arm after the command ends.
    const ended = await run(['threads', '--json', '--store', store], { readStdoutAfterMs: 3000 });
    expect(ended).toMatchObject({ code: 0, signal: null, stderr: '' });
    expect(JSON.parse(ended.stdout)).toHaveLength(THREADS);
  });

  it('a slow reader of a table gets every row', async () => {
    const ended = await run(['threads', '--store', store], { readStdoutAfterMs: 3000 });
    expect(ended.code).toBe(0);
    expect(ended.stdout.trimEnd().split('\n')).toHaveLength(THREADS + 1);
  });

  it('a reader that goes away ends the command quietly with status 0', async () => {
    const ended = await run(['threads', '--json', '--store', store], { closeStdoutAfterFirstChunk: true });
    expect(ended).toMatchObject({ code: 0, signal: null, stderr: '' });
  });

  it('a usage error still exits 2 when stderr is closed early (2>&1 | head -1)', async () => {
    const ended = await run(['show', '--store', store], { closeStderr: true });
    expect(ended).toMatchObject({ code: 2, signal: null });
  });

  it('an error still exits 1 when stderr is closed early', async () => {
    const ended = await run(['show', 'no-such-thread', '--store', store], { closeStderr: true });
    expect(ended).toMatchObject({ code: 1, signal: null });
  });
});
