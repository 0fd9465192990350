import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const main = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'main.js');
const home = mkdtempSync(join(tmpdir(), 'flow-demo-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** Runs the built demo with stdin that is not a terminal, as CI would. */
function demo(...args: string[]) {
  const r = spawnSync(process.execPath, [main, ...args], {
    cwd: home,
    env: { ...process.env, FLOW_DEMO_DIR: home },
    input: '',
    encoding: 'utf8',
    timeout: 50_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('pnpm demo, non-interactive', () => {
  it('--approve: crashes a worker, resumes it, takes the approval, publishes, prints the history; exits 0', () => {
    const { code, out, err } = demo('--approve');
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toMatch(/worker \d+ │ step 1 +✓ triage .*notify \[redacted\]/);
    expect(out).toMatch(/✗ killed worker \d+ with SIGKILL in the middle of "draft"/);
    expect(out).toContain('last committed checkpoint: step 1, next: draft');
    expect(out).toMatch(/step 3 +✓ draft +drafted \d+ words/);
    expect(out).toContain('step 4   ⏸ waiting for a human in review');
    expect(out).toContain('answer: approve — from the --approve flag');
    // A second worker takes the answer, sends, and is killed before "publish" commits.
    const sender = /worker (\d+) │ sent: post-\S+\.md \(key flow-/.exec(out)?.[1];
    expect(sender).toBeDefined();
    expect(out).toMatch(/✗ killed worker \d+ with SIGKILL after the send, before "publish" committed/);
    expect(out).toContain('last committed checkpoint: step 6, next: publish — the send is stored');
    expect(out).toMatch(/step 8 +✓ publish +published to/);
    expect(out).toContain('is refused with ALREADY_RESUMED');
    for (const row of [/^ {3}0 +triage +running +input/m, /^ {3}2 +draft +running +resume claim/m]) {
      expect(out).toMatch(row);
    }
    expect(out).toMatch(/^ {3}4 +review +interrupted +interrupt from review/m);
    expect(out).toMatch(/^ {3}7 +publish +running +resume claim/m);
    expect(out).toMatch(/^ {3}8 +— +done/m);
    const thread = /thread: (post-\S+)/.exec(out)?.[1] as string;
    const published = join(home, 'published', `${thread}.md`);
    expect(existsSync(published)).toBe(true);
    expect(readFileSync(published, 'utf8')).toContain('# Durable workflows in five minutes');
    // The node after the crash ran in the demo process, the one before in the killed worker.
    const trail =
      /who ran what: triage \(pid (\d+)\) → draft \(pid (\d+)\) → review \(pid (\d+)\) → publish \(pid (\d+)\)/.exec(
        out,
      );
    expect(trail?.[1]).not.toBe(trail?.[2]);
    // The post was sent once, by the killed worker: the re-run of "publish" in the demo got the stored receipt.
    expect(trail?.[3]).toBe(sender);
    expect(trail?.[4]).toBe(trail?.[2]);
    const sends = readFileSync(join(home, 'published', 'outbox.log'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith(`${thread} `));
    expect(sends).toEqual([expect.stringMatching(new RegExp(`^${thread} flow-\\S+ sent by pid ${sender}$`))]);
    expect(out).toContain(`outbox: 1 send for this thread (sent by pid ${sender})`);
  });

  it('without a flag and without a terminal, says so and rejects; running again starts a new thread', () => {
    const first = demo();
    const again = demo('--reject');
    for (const { code, out } of [first, again]) {
      expect(code).toBe(0);
      expect(out).toMatch(/step 7 +✓ archive +archived, not published/);
      expect(out).toContain('Done: the post was archived, not published.');
    }
    expect(first.out).toContain(
      'stdin is not a terminal and no --approve/--reject was given, so the demo rejects',
    );
    const threads = [first, again].map(({ out }) => /thread: (post-\S+)/.exec(out)?.[1]);
    expect(threads[0]).not.toBe(threads[1]);
  });

  it('rejects a bad command line with exit code 2', () => {
    const { code, err } = demo('--approve', '--reject');
    expect(code).toBe(2);
    expect(err).toContain('pass either --approve or --reject, not both');
  });
});
