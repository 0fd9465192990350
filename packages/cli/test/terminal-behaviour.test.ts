import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { SqliteCheckpointer } from '@flow/checkpoint-sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';
import type { CliIo } from '../src/io.js';
import { populate } from './support/fixture.js';

/** A stream that records what is written, and says whether it is a terminal. */
class Capture {
  text = '';
  constructor(readonly isTTY: boolean) {}
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

interface FakeTerminal extends CliIo {
  stdout: Capture;
  stderr: Capture;
}

/** In-process io: a TTY (or not), an optional answer typed on stdin, an environment. */
function terminal(opts: { tty: boolean; input?: string; env?: Record<string, string> }): FakeTerminal {
  const stdin = Object.assign(new PassThrough(), { isTTY: opts.tty });
  if (opts.input !== undefined) stdin.end(opts.input);
  return {
    stdout: new Capture(opts.tty),
    stderr: new Capture(opts.tty),
    stdin,
    env: opts.env ?? {},
    now: () => Date.now(),
  };
}

let dir: string;
let store: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'flow-cli-tty-'));
  const path = join(dir, 'runs.db');
  store = `sqlite:${path}`;
  const cp = new SqliteCheckpointer(path);
  await populate(cp);
  await cp.close();
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('colour', () => {
  it('is used on a TTY', async () => {
    const io = terminal({ tty: true });
    expect(await runCli(['threads', '--store', store], io)).toBe(0);
    expect(io.stdout.text).toContain('\u001b[33minterrupted');
    expect(io.stdout.text).toContain('\u001b[32mdone');
  });

  it('is never used when NO_COLOR is set, nor off a TTY', async () => {
    for (const io of [terminal({ tty: true, env: { NO_COLOR: '1' } }), terminal({ tty: false })]) {
      expect(await runCli(['show', 'order-42', '--store', store], io)).toBe(0);
      expect(await runCli(['show', 'nope', '--store', store], io)).toBe(1);
      expect(io.stdout.text).toContain('interrupted at review');
      expect(io.stdout.text + io.stderr.text).not.toContain('\u001b[');
    }
  });
});

describe('delete on a terminal', () => {
  it('asks first, and deletes on yes', async () => {
    const io = terminal({ tty: true, input: 'y\n', env: { NO_COLOR: '1' } });
    expect(await runCli(['delete', 'order-42', '--store', store], io)).toBe(0);
    expect(io.stderr.text).toBe(
      'delete thread order-42 (latest step 3, interrupted) and its whole history? [y/N] ',
    );
    expect(io.stdout.text).toBe('deleted thread order-42 (4 checkpoints)\n');
  });

  it('deletes nothing on any other answer or on end of input, and exits 1', async () => {
    for (const input of ['n\n', '\n', 'yes please\n', '']) {
      const io = terminal({ tty: true, input, env: { NO_COLOR: '1' } });
      expect(await runCli(['delete', 'order-42', '--store', store], io), JSON.stringify(input)).toBe(1);
      expect(io.stderr.text).toMatch(/\[y\/N\] error: not confirmed: nothing was deleted\n$/);
    }
    const check = terminal({ tty: false });
    expect(await runCli(['history', 'order-42', '--json', '--store', store], check)).toBe(0);
    expect(JSON.parse(check.stdout.text)).toHaveLength(4);
  });
});

describe('copy progress', () => {
  it('draws a progress line on a terminal and erases it before the summary', async () => {
    const io = terminal({ tty: true });
    const to = `sqlite:${join(dir, 'copy.db')}`;
    expect(await runCli(['copy', '--from', store, '--to', to], io)).toBe(0);
    const erase = '\r\u001b[2K';
    expect(io.stderr.text.startsWith(`${erase}copying: `)).toBe(true);
    expect(io.stderr.text).toMatch(/copying: \d+ threads?, \d+ copied, \d+ skipped/);
    expect(io.stderr.text.endsWith(erase)).toBe(true);
    expect(io.stdout.text).toBe('copied 16 checkpoints, skipped 0 already in the target (6 threads)\n');
  });

  it('writes no progress off a terminal', async () => {
    const io = terminal({ tty: false });
    expect(await runCli(['copy', '--from', store, '--to', `file:${join(dir, 'copy')}`], io)).toBe(0);
    expect(io.stderr.text).toBe('');
  });
});
