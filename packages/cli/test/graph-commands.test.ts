import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runBin } from './support/run-bin.js';

const APP = fileURLToPath(new URL('./support/graph-app.mjs', import.meta.url));
const TOKEN = 'cli-serve-token-77';

/** `flow serve …` in the background: resolves with its URL once it printed it. */
async function startServe(args: string[], env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, [BIN, 'serve', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr += c));
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`flow serve exited ${code}: ${stderr}`)));
  });
  const stop = () =>
    new Promise<number | null>((resolve) => {
      child.once('exit', (code) => resolve(code));
      child.kill('SIGTERM');
    });
  return { url, stop, stderr: () => stderr };
}

describe('flow serve and flow resume with a graph module', () => {
  let dir: string;
  let db: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'flow-cli-graph-'));
    db = join(dir, 'runs.db');
    env = { FLOW_TEST_DB: db };
    // The module reads its store from the environment when it is first imported (here, to start runs).
    process.env.FLOW_TEST_DB = db;
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function startRun(thread: string) {
    const { pipeline } = await import('./support/graph-app.mjs');
    return pipeline.invoke({ topic: 'owls', log: [] }, { thread });
  }

  it('serves the default export, with the token from FLOW_TOKEN, and never prints the token', async () => {
    await startRun('served-1');
    const server = await startServe(['--graph', APP, '--port', '0'], { ...env, FLOW_TOKEN: TOKEN });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const anon = await fetch(`${server.url}/api/graphs`);
      expect(anon.status).toBe(401);
      const graphs = await fetch(`${server.url}/api/graphs`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(await graphs.json()).toEqual({ graphs: [{ name: 'graph-app' }] });
      const run = await fetch(`${server.url}/api/graphs/graph-app/runs/served-1`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(((await run.json()) as { interrupted: boolean }).interrupted).toBe(true);
      expect((await fetch(server.url)).status).toBe(200);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect(server.stderr()).toContain('token from FLOW_TOKEN');
    expect(server.stderr()).not.toContain(TOKEN);
    expect(server.stderr()).not.toContain('owls');
  });

  it('serves an object of named graphs by export name, with --token', async () => {
    const server = await startServe(['--graph', `${APP}#graphs`, '--port', '0', '--token', TOKEN], env);
    try {
      const graphs = await fetch(`${server.url}/api/graphs`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(await graphs.json()).toEqual({ graphs: [{ name: 'blog' }, { name: 'news' }] });
    } finally {
      await server.stop();
    }
  });

  it('a module without a compiled graph is a one-line error naming what it found', async () => {
    const cases: [string, RegExp][] = [
      [`${APP}#notAGraph`, /export "notAGraph" is not a compiled graph .*found an object with hello/],
      [`${APP}#uncompiled`, /found a StateGraph that is not compiled/],
      [`${APP}#missing`, /has no export "missing"; it exports .*pipeline/],
      [join(dir, 'nope.mjs'), /cannot load --graph/],
    ];
    for (const [spec, message] of cases) {
      const result = await runBin(['serve', '--graph', spec, '--port', '0'], {
        env: { ...env, FLOW_TOKEN: TOKEN },
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('refuses to serve without a token, and without auth off loopback (usage errors)', async () => {
    const none = await runBin(['serve', '--graph', APP, '--port', '0'], { env });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('flow serve needs a token');
    const open = await runBin(['serve', '--graph', APP, '--no-auth', '--host', '0.0.0.0', '--port', '0'], {
      env,
    });
    expect(open.code).toBe(2);
    expect(open.stderr).toContain('loopback');
  });

  it('resume answers the interrupt it read and prints the result; a second answer is ALREADY_RESUMED', async () => {
    await startRun('resume-1');
    const first = await runBin(['resume', 'resume-1', '--graph', APP, '--answer', '"approve"'], { env });
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toContain('resume-1: done (step 5)');
    expect(first.stdout).toContain('"published"');
    const again = await runBin(['resume', 'resume-1', '--graph', APP, '--answer', '"reject"'], { env });
    expect(again.code).toBe(1);
    // The engine's AlreadyResumed names the thread, its step and where the run stands.
    expect(again.stderr).toContain('thread "resume-1" step 5: cannot take an answer: the run is done');
  });

  it('resume --json prints the run result as one document; --patch amends the state', async () => {
    await startRun('resume-2');
    const result = await runBin(
      [
        'resume',
        'resume-2',
        '--graph',
        `${APP}#pipeline`,
        '--answer',
        '"reject"',
        '--patch',
        '{"topic":"bats"}',
        '--json',
      ],
      { env },
    );
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect(doc).toMatchObject({
      thread: 'resume-2',
      status: 'done',
      state: { topic: 'bats', verdict: 'reject' },
    });
  });

  it('resume: bad JSON is a usage error, an unknown thread exits 1, several graphs need a name', async () => {
    const bad = await runBin(['resume', 'x', '--graph', APP, '--answer', 'yes'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--answer must be JSON');
    const patch = await runBin(['resume', 'x', '--graph', APP, '--patch', '[1]'], { env });
    expect(patch.code).toBe(2);
    const unknown = await runBin(['resume', 'no-such', '--graph', APP, '--answer', '1'], { env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('thread "no-such" not found');
    const several = await runBin(['resume', 'x', '--graph', `${APP}#graphs`, '--answer', '1'], { env });
    expect(several.code).toBe(2);
    expect(several.stderr).toContain('exports several graphs (blog, news)');
  });
});
