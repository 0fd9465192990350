import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreKind } from '../../src/store/store-url.js';
import { HOSTILE_THREAD, minutesAgo, populate, RICH_STATE_JSON } from './fixture.js';
import { runBin, runJson } from './run-bin.js';
import { createStore, type StoreFixture, usingStore } from './stores.js';

/**
 * Registers the suite that runs every `flow` command, through the built bin, against one kind of store
 * populated through the API. Read-only checks come first; prune and delete use threads of their own.
 */
export function describeStoreCommands(kind: StoreKind): void {
  describe(`flow on a ${kind} store`, () => {
    let store: StoreFixture;
    let now: number;
    const flow = (...args: string[]) => runBin([...args, '--store', store.url]);
    const json = (...args: string[]) => runJson([...args, '--store', store.url]);

    beforeAll(async () => {
      store = await createStore(kind);
      now = Date.now();
      await usingStore(store, (cp) => populate(cp, now));
    });
    afterAll(() => store?.cleanup());

    it('setup succeeds on a populated store and says which store', async () => {
      const result = await flow('setup');
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toContain('store ready:');
    });

    it('threads --json prints every ThreadInfo in thread order', async () => {
      expect(await json('threads', '--json')).toEqual([
        {
          thread: HOSTILE_THREAD,
          latestStep: 0,
          interrupted: false,
          done: true,
          failed: false,
          error: null,
          ts: minutesAgo(now, 60 * 48),
        },
        {
          thread: 'delete-me',
          latestStep: 1,
          interrupted: false,
          done: true,
          failed: false,
          error: null,
          ts: minutesAgo(now, 20),
        },
        {
          thread: 'done-1',
          latestStep: 1,
          interrupted: false,
          done: true,
          failed: false,
          error: null,
          ts: minutesAgo(now, 300),
        },
        {
          thread: 'order-42',
          latestStep: 3,
          interrupted: true,
          done: false,
          failed: false,
          error: null,
          ts: minutesAgo(now, 3),
        },
        {
          thread: 'prune-me',
          latestStep: 5,
          interrupted: false,
          done: true,
          failed: false,
          error: null,
          ts: minutesAgo(now, 0),
        },
        {
          thread: 'running-1',
          latestStep: 0,
          interrupted: false,
          done: false,
          failed: false,
          error: null,
          ts: minutesAgo(now, 0.5),
        },
      ]);
    });

    it('threads filters by --status and stops at --limit', async () => {
      const pick = (rows: unknown) => (rows as { thread: string }[]).map((r) => r.thread);
      expect(pick(await json('threads', '--status', 'interrupted', '--json'))).toEqual(['order-42']);
      expect(pick(await json('threads', '--status', 'done', '--limit', '2', '--json'))).toEqual([
        HOSTILE_THREAD,
        'delete-me',
      ]);
    });

    it('threads prints an aligned table with statuses and relative ages, without colour off a TTY', async () => {
      const { code, stdout } = await flow('threads');
      expect(code).toBe(0);
      expect(stdout).not.toContain('\u001b[');
      const lines = stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(7);
      expect(lines[0]).toMatch(/^THREAD\s+STEP\s+STATUS\s+AGE$/);
      const stepColumn = lines[0]!.indexOf('STEP');
      expect(lines.find((l) => l.startsWith('order-42'))).toMatch(/^order-42\s+3\s+interrupted\s+3m ago$/);
      expect(lines.find((l) => l.startsWith('done-1'))).toMatch(/^done-1\s+1\s+done\s+5h ago$/);
      expect(lines.find((l) => l.startsWith('running-1'))).toMatch(
        /^running-1\s+0\s+running\s+(30s|\d+s) ago$/,
      );
      expect(lines.find((l) => l.startsWith(HOSTILE_THREAD))).toMatch(/\s2d ago$/);
      for (const line of lines.slice(1).filter((l) => !l.startsWith(HOSTILE_THREAD))) {
        expect(line.slice(stepColumn)).toMatch(/^\d/);
      }
    });

    it('show --json prints the latest checkpoint with its state as plain JSON', async () => {
      const cp = await json('show', 'order-42', '--json');
      expect(cp).toEqual({
        thread: 'order-42',
        step: 3,
        state: RICH_STATE_JSON,
        next: ['review'],
        interrupted: true,
        interruptNode: 'review',
        interruptPayload: { question: 'ok?', token: 'tok-secret' },
        ts: minutesAgo(now, 3),
        revision: 1,
        done: false,
        stateVersion: 1,
        error: null,
      });
    });

    it('show --step prints that step', async () => {
      expect(await json('show', 'order-42', '--step', '1', '--json')).toMatchObject({
        step: 1,
        state: { log: [], n: 1 },
        next: ['work'],
        done: false,
      });
      expect(await json('show', HOSTILE_THREAD, '--json')).toMatchObject({
        thread: HOSTILE_THREAD,
        done: true,
      });
    });

    it('show --redact masks the keys at any depth, in the state and the payload', async () => {
      const cp = (await json('show', 'order-42', '--redact', 'password,token', '--json')) as {
        state: typeof RICH_STATE_JSON;
        interruptPayload: unknown;
      };
      expect(cp.state.user).toEqual({ name: 'ada', password: '[redacted]' });
      expect(cp.state.seen).toEqual([['x', { password: '[redacted]' }]]);
      expect(cp.state.apiKey).toBe('key-123');
      expect(cp.interruptPayload).toEqual({ question: 'ok?', token: '[redacted]' });
    });

    it('show pretty-prints the checkpoint for people, with the real types and --redact applied', async () => {
      const { code, stdout } = await flow('show', 'order-42', '--redact', 'password,apiKey');
      expect(code).toBe(0);
      expect(stdout).toMatch(/^thread\s+order-42$/m);
      expect(stdout).toMatch(/^status\s+interrupted at review$/m);
      expect(stdout).toMatch(/^written\s+\S+Z \(3m ago\)$/m);
      expect(stdout).toContain("question: 'ok?'");
      expect(stdout).toContain("tags: Set(2) { 'a', 'b' }");
      expect(stdout).toContain('big: 100000000000000000000n');
      expect(stdout).toContain("user: { name: 'ada', password: '[redacted]' }");
      expect(stdout).not.toMatch(/hunter2|in-a-map|key-123/);
    });

    it('show of a missing step or an unknown thread is one line on stderr and exit 1', async () => {
      const missingStep = await flow('show', 'order-42', '--step', '99');
      expect(missingStep).toMatchObject({ code: 1, stdout: '' });
      expect(missingStep.stderr).toBe('error: thread "order-42" has no step 99 (latest is 3)\n');
      const unknown = await flow('show', 'nope');
      expect(unknown).toEqual({ code: 1, stdout: '', stderr: 'error: thread "nope" not found\n' });
    });

    it('history --json prints every checkpoint, newest first', async () => {
      const rows = (await json('history', 'order-42', '--json')) as { step: number; revision: number }[];
      expect(rows.map((r) => r.step)).toEqual([3, 2, 1, 0]);
      expect(rows[0]).toMatchObject({ state: RICH_STATE_JSON, interrupted: true });
      expect(rows[3]).toMatchObject({ state: { log: [], n: 0 }, ts: minutesAgo(now, 10), revision: 1 });
    });

    it('history prints one line per step', async () => {
      const { code, stdout } = await flow('history', 'order-42');
      expect(code).toBe(0);
      const lines = stdout.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^STEP\s+STATUS\s+NEXT\s+VERSION\s+WRITTEN\s+AGE$/);
      expect(lines.slice(1)).toEqual([
        expect.stringMatching(
          new RegExp(`^3\\s+interrupted\\s+review\\s+1\\s+${minutesAgo(now, 3)}\\s+3m ago$`),
        ),
        expect.stringMatching(/^2\s+running\s+work\s+1\s+\S+\s+8m ago$/),
        expect.stringMatching(/^1\s+running\s+work\s+1\s+\S+\s+9m ago$/),
        expect.stringMatching(/^0\s+running\s+work\s+1\s+\S+\s+10m ago$/),
      ]);
    });

    it('prune removes old checkpoints by age and step (both bounds: only those meeting both), never the latest', async () => {
      // prune-me steps 0-5 were written 50, 40, 30, 20, 10 and 0 minutes ago.
      const both = await flow('prune', 'prune-me', '--older-than', '25m', '--before-step', '2');
      expect(both).toEqual({ code: 0, stdout: 'removed 2 checkpoints from thread prune-me\n', stderr: '' });
      const byStep = await flow('prune', 'prune-me', '--before-step', '100');
      expect(byStep.stdout).toBe('removed 3 checkpoints from thread prune-me\n');
      await usingStore(store, async (cp) =>
        expect((await cp.list('prune-me')).map((c) => c.step)).toEqual([5]),
      );
      expect(await flow('prune', 'nope', '--older-than', '2025-01-01')).toEqual({
        code: 1,
        stdout: '',
        stderr: 'error: thread "nope" not found\n',
      });
    });

    it('delete of a thread a run holds (its lease live) exits 1 and removes nothing', async () => {
      const owner = 'worker-7/run';
      await usingStore(store, async (cp) => {
        expect(await cp.acquireLease('delete-me', { owner, ttlMs: 60_000 })).toBeDefined();
      });
      try {
        const refused = await flow('delete', 'delete-me', '--yes');
        expect(refused).toMatchObject({ code: 1, stdout: '' });
        expect(refused.stderr).toMatch(
          new RegExp(
            `^error: thread delete-me is being run \\(by ${owner} on .+, pid ${process.pid}, lease until .+\\): ` +
              'nothing was deleted; delete it once that run stops\n$',
          ),
        );
        await usingStore(store, async (cp) => {
          expect((await cp.list('delete-me')).map((c) => c.step)).toEqual([1, 0]);
          expect((await cp.getLease('delete-me'))?.owner).toBe(owner); // the run's lease is untouched
        });
      } finally {
        await usingStore(store, (cp) => cp.releaseLease('delete-me', owner));
      }
    });

    it('delete --yes removes the whole thread; an unknown thread exits 1', async () => {
      const deleted = await flow('delete', 'delete-me', '--yes');
      expect(deleted).toEqual({ code: 0, stdout: 'deleted thread delete-me (2 checkpoints)\n', stderr: '' });
      await usingStore(store, async (cp) => expect(await cp.get('delete-me')).toBeUndefined());
      expect(await flow('delete', 'delete-me', '--yes')).toEqual({
        code: 1,
        stdout: '',
        stderr: 'error: thread "delete-me" not found\n',
      });
    });
  });
}
