import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const SERVE = fileURLToPath(new URL('../dist/serve.js', import.meta.url));

it('pnpm demo:serve leaves the review open and answers it over HTTP', async () => {
  const home = await mkdtemp(join(tmpdir(), 'flow-demo-serve-'));
  const child = spawn(process.execPath, [SERVE], {
    env: { ...process.env, FLOW_DEMO_DIR: home, PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const lines = createInterface({ input: child.stdout! });
    const url = await new Promise<string>((resolve, reject) => {
      lines.on('line', (line) => {
        const match = /^open (http:\/\/127\.0\.0\.1:\d+)\//.exec(line);
        if (match) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`demo:serve exited ${code}`)));
    });
    const waiting = (await (await fetch(`${url}/api/graphs/pipeline/runs?status=interrupted`)).json()) as {
      runs: { thread: string }[];
    };
    expect(waiting.runs).toHaveLength(1);
    const thread = encodeURIComponent(waiting.runs[0]!.thread);
    const answered = await fetch(`${url}/api/graphs/pipeline/runs/${thread}/resume`, {
      method: 'POST',
      body: JSON.stringify({ answer: 'approve' }),
    });
    expect(answered.status).toBe(200);
    expect(await answered.json()).toMatchObject({ status: 'done', state: { decision: 'approved' } });
    expect((await fetch(url)).status).toBe(200);
  } finally {
    await new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGTERM');
    });
    await rm(home, { recursive: true, force: true });
  }
});
