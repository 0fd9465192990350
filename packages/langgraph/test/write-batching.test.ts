import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteCheckpointer } from '@flow/checkpoint-sqlite';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { FlowSaver } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'flow-langgraph-batch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Commits in a WAL file: a frame is a 24-byte header and a page, and a commit's last frame stores the
 * database size after it (non-zero); other frames store zero. Exact while the WAL is never checkpointed.
 */
function walCommits(path: string): number {
  const wal = `${path}-wal`;
  const fd = openSync(wal, 'r');
  try {
    const header = Buffer.alloc(32);
    readSync(fd, header, 0, 32, 0);
    const pageSize = header.readUInt32BE(8);
    const size = statSync(wal).size;
    const frame = Buffer.alloc(8);
    let commits = 0;
    for (let at = 32; at + 24 + pageSize <= size; at += 24 + pageSize) {
      readSync(fd, frame, 0, 8, at);
      if (frame.readUInt32BE(4) !== 0) commits++;
    }
    return commits;
  } finally {
    closeSync(fd);
  }
}

const STEPS = 20;

function loop(saver: FlowSaver) {
  const State = Annotation.Root({ n: Annotation<number>() });
  return new StateGraph(State)
    .addNode('a', async (s: { n: number }) => ({ n: s.n + 1 }))
    .addNode('b', async (s: { n: number }) => ({ n: s.n + 1 }))
    .addEdge(START, 'a')
    .addConditionalEdges('a', (s: { n: number }) => (s.n < STEPS ? 'b' : END), ['b', END])
    .addConditionalEdges('b', (s: { n: number }) => (s.n < STEPS ? 'a' : END), ['a', END])
    .compile({ checkpointer: saver });
}

describe('a task’s writes go out with the checkpoint after them', () => {
  it.each(['sync', 'async'] as const)(
    'durability %s on SQLite: one commit per super-step, and every checkpoint keeps its writes',
    async (durability) => {
      const path = join(dir, `${durability}.db`);
      const db = new Database(path);
      const store = new SqliteCheckpointer(db);
      await store.setup();
      db.pragma('wal_autocheckpoint = 0'); // keep every frame in the WAL, so its commits can be counted
      const saver = new FlowSaver(store);
      const before = walCommits(path);
      const config = { configurable: { thread_id: 'loop' }, recursionLimit: STEPS + 10, durability };
      expect((await loop(saver).invoke({ n: 0 }, config)).n).toBe(STEPS);
      const commits = walCommits(path) - before;

      // STEPS + 2 checkpoints (input, start, one per node) and STEPS + 1 tasks' writes (start, each node):
      // without batching that is 2 × STEPS + 3 commits; each write shares the next checkpoint's commit.
      const checkpoints = [];
      for await (const t of saver.list({ configurable: { thread_id: 'loop' } })) checkpoints.push(t);
      expect(checkpoints).toHaveLength(STEPS + 2);
      expect(commits).toBeLessThanOrEqual(STEPS + 4);
      // Nothing was dropped: every checkpoint but the last has the writes of the task that ran from it.
      const withWrites = checkpoints.filter(
        (t) => t.pendingWrites !== undefined && t.pendingWrites.length > 0,
      );
      expect(withWrites).toHaveLength(STEPS + 1);
      expect(checkpoints[0]?.pendingWrites).toEqual([]);
      await store.close();
      db.close();
    },
  );
});
