import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';
import { type BinResult, runBin } from './support/run-bin.js';

/** The store is never opened by these: a usage error is found first. */
const STORE = 'sqlite:/nonexistent/never-opened.db';

/** Runs the CLI in-process with piped (non-TTY) streams, for the many cases commander settles alone. */
async function inProcess(args: string[]): Promise<BinResult> {
  const out = { text: '', write: (s: string) => (out.text += s) };
  const err = { text: '', write: (s: string) => (err.text += s) };
  const stdin = Object.assign(new PassThrough(), { isTTY: false });
  const code = await runCli(args, { stdout: out, stderr: err, stdin, env: {}, now: () => Date.now() });
  return { code, stdout: out.text, stderr: err.text };
}

describe('usage errors exit 2 with the usage text', () => {
  it.each([
    ['no command', []],
    ['an unknown command', ['frobnicate']],
    ['an unknown option', ['threads', '--bogus']],
    ['a missing argument', ['show']],
    ['an extra argument', ['threads', 'extra']],
    ['an invalid --status', ['threads', '--status', 'paused']],
    ['a non-numeric --limit', ['threads', '--limit', 'ten']],
    ['a zero --limit', ['threads', '--limit', '0']],
    ['a negative --step', ['show', 't', '--step', '-1']],
    ['an empty thread id', ['show', '']],
    ['prune without a bound', ['prune', 't']],
    ['a fractional duration', ['prune', 't', '--older-than', '1.5h']],
    ['a date that is not ISO-8601', ['prune', 't', '--older-than', 'yesterday']],
    ['a day that does not exist (30 February)', ['prune', 't', '--older-than', '2025-02-30']],
    ['an hour that does not exist (24:00)', ['prune', 't', '--older-than', '2025-01-01T24:00:00Z']],
    ['a malformed --before-step', ['prune', 't', '--before-step', '3x']],
    ['delete without --yes off a terminal', ['delete', 't']],
    ['copy without --to', ['copy', '--from', STORE]],
    ['a store that is not a URL or .db path', ['threads', '--store', 'runs']],
    ['an invalid postgres schema', ['threads', '--store', 'postgres://db/app?schema=no-dash']],
  ])('%s', async (_name, args) => {
    const result = await inProcess([...args, ...(args.includes('--store') ? [] : ['--store', STORE])]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: /);
    expect(result.stderr).toMatch(/Usage: flow/);
  });

  it('a --older-than date that does not exist names the field, where Date.parse would roll it over', async () => {
    for (const [date, field] of [
      ['2025-02-30', 'day 30 (February 2025 has 28 days)'],
      ['2023-02-29T10:00', 'day 29 (February 2023 has 28 days)'],
      ['2025-04-31T00:00:00+05:30', 'day 31 (April 2025 has 30 days)'],
      ['2025-01-01T24:00:00Z', 'hour 24 (hours run 00-23)'],
    ]) {
      const result = await inProcess(['prune', 't', '--older-than', date!, '--store', STORE]);
      expect(result.code, date).toBe(2);
      expect(result.stderr.split('\n')[0], date).toBe(
        `error: --older-than names a date or time that does not exist: ${field}, got "${date}"`,
      );
      expect(result.stderr, date).toMatch(/\nUsage: flow prune/);
    }
  });

  it('through the real bin: no command, a malformed duration, a store that is no URL, delete off a terminal', async () => {
    const none = await runBin([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^error: missing command\nUsage: flow \[options\] \[command\]/);
    const duration = await runBin(['prune', 't', '--older-than', '7w', '--store', STORE]);
    expect(duration.code).toBe(2);
    expect(duration.stderr).toMatch(/^error: --older-than must be a duration .* got "7w"\nUsage: flow prune/);
    const store = await runBin(['threads', '--store', 'runs']);
    expect(store.code).toBe(2);
    expect(store.stderr).toMatch(/^error: unknown store "runs": use sqlite:PATH/);
    // Any scheme may have a plugin: one that none serves is a missing backend (exit 1), password masked.
    const scheme = await runBin(['threads', '--store', 'nosuch://u:pw@db/app']);
    expect(scheme.code).toBe(1);
    expect(scheme.stderr).toMatch(/^error: no backend for nosuch: stores is installed/);
    expect(scheme.stderr).not.toContain('pw');
    const del = await runBin(['delete', 't', '--store', STORE]);
    expect(del.code).toBe(2);
    expect(del.stderr).toMatch(
      /^error: delete asks for confirmation: pass --yes when stdin is not a terminal\n/,
    );
    expect(del.stderr).toMatch(/Usage: flow delete/);
  });

  it('--help and --version exit 0 on stdout', async () => {
    const help = await inProcess(['--help']);
    expect(help.code).toBe(0);
    for (const command of ['threads', 'show', 'history', 'prune', 'delete', 'copy', 'setup']) {
      expect(help.stdout).toContain(command);
    }
    expect(await runBin(['--version'])).toEqual({ code: 0, stdout: '0.1.0\n', stderr: '' });
  });
});

describe('errors exit 1 with one line on stderr', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'flow-cli-errors-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('a store that does not exist is not created by a read command', async () => {
    const result = await runBin(['threads'], { cwd: dir });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: no store at sqlite:flow.db (run "flow setup --store sqlite:flow.db" to create one)\n',
    });
    const file = await runBin(['history', 't', '--store', `file:${join(dir, 'missing')}`]);
    expect(file.code).toBe(1);
    expect(file.stderr).toMatch(/^error: no store at file:.*missing/);
  });

  it('FLOW_STORE is used when --store is not given, and --store wins over it', async () => {
    const fromEnv = await runBin(['threads'], {
      cwd: dir,
      env: { FLOW_STORE: `sqlite:${join(dir, 'env.db')}` },
    });
    expect(fromEnv.stderr).toContain('env.db');
    const fromFlag = await runBin(['threads', '--store', `sqlite:${join(dir, 'flag.db')}`], {
      cwd: dir,
      env: { FLOW_STORE: `sqlite:${join(dir, 'env.db')}` },
    });
    expect(fromFlag.stderr).toContain('flag.db');
  });

  it('--debug adds the stack', async () => {
    const result = await runBin(['threads', '--debug'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: CliError: no store at sqlite:flow.db/);
    expect(result.stderr).toMatch(/\n\s+at /);
  });

  it('setup creates the default store in the working directory', async () => {
    const result = await runBin(['setup'], { cwd: dir });
    expect(result).toEqual({ code: 0, stdout: 'store ready: sqlite:flow.db\n', stderr: '' });
    expect(await runBin(['threads', '--json'], { cwd: dir })).toEqual({
      code: 0,
      stdout: '[]\n',
      stderr: '',
    });
    expect(await runBin(['threads'], { cwd: dir })).toEqual({ code: 0, stdout: 'no threads\n', stderr: '' });
  });
});
