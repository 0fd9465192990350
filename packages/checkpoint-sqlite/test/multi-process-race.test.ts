import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SqliteCheckpointer } from '../src/index.js';
import { tempDbPath } from './support/databases.js';

const CHILD = fileURLToPath(new URL('./fixtures/race-child.mjs', import.meta.url));
const CONTENDERS = 8;

interface Outcome {
  won: boolean;
  revision?: number;
  pid?: number;
  code?: string;
  expected?: number;
  actual?: number;
}

/** Child processes that each hold their own checkpointer on one file and put on one (thread, step). */
class Contenders {
  readonly #children: ChildProcess[] = [];
  readonly #lines: AsyncIterator<string>[] = [];

  constructor(path: string, thread: string, step: number) {
    for (let i = 0; i < CONTENDERS; i++) {
      const child = spawn(process.execPath, [CHILD, path, thread, String(step)], {
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      this.#children.push(child);
      this.#lines.push(createInterface({ input: child.stdout! })[Symbol.asyncIterator]());
    }
  }

  async #next(i: number): Promise<string> {
    const { value, done } = await this.#lines[i]!.next();
    if (done) throw new Error(`contender ${i} ended early`);
    return value;
  }

  /** Resolves once every contender has started and is waiting. */
  async ready(): Promise<void> {
    for (let i = 0; i < CONTENDERS; i++) expect(await this.#next(i)).toBe('ready');
  }

  /** Releases every contender at once with the same `ifRevision`; resolves with their outcomes. */
  async race(ifRevision: number): Promise<Outcome[]> {
    for (const child of this.#children) child.stdin!.write(`go ${ifRevision}\n`);
    return Promise.all(this.#children.map(async (_, i) => JSON.parse(await this.#next(i)) as Outcome));
  }

  async exit(): Promise<(number | null)[]> {
    for (const child of this.#children) child.stdin!.end();
    await Promise.all(this.#children.map((c) => (c.exitCode === null ? once(c, 'exit') : undefined)));
    return this.#children.map((c) => c.exitCode);
  }

  kill(): void {
    for (const child of this.#children) if (child.exitCode === null) child.kill();
  }
}

function expectOneWinner(outcomes: Outcome[], ifRevision: number): Outcome {
  const winners = outcomes.filter((o) => o.won);
  expect(winners).toHaveLength(1);
  expect(winners[0]!.revision).toBe(ifRevision + 1);
  for (const loser of outcomes.filter((o) => !o.won)) {
    expect(loser).toMatchObject({
      code: 'CHECKPOINT_CONFLICT',
      expected: ifRevision,
      actual: ifRevision + 1,
    });
  }
  return winners[0]!;
}

describe('conditional puts racing across processes', () => {
  // Starting 8 Node processes takes seconds on a busy 2-core machine; the race itself is milliseconds.
  it(`${CONTENDERS} processes with the same ifRevision on one (thread, step): exactly one wins each round`, {
    timeout: 60_000,
  }, async () => {
    const path = tempDbPath();
    const thread = 'race/🏁 "x"';
    const contenders = new Contenders(path, thread, 3);
    const checkpointer = new SqliteCheckpointer(path);
    try {
      await contenders.ready();
      // Round 1 on a fresh file: every contender also runs setup() at the same moment.
      const first = expectOneWinner(await contenders.race(0), 0);
      expect(await checkpointer.get(thread, 3)).toMatchObject({ revision: 1, state: { writer: first.pid } });
      // Round 2 on the stored checkpoint: ifRevision 1.
      const second = expectOneWinner(await contenders.race(1), 1);
      expect(await checkpointer.get(thread, 3)).toMatchObject({ revision: 2, state: { writer: second.pid } });
      expect(await checkpointer.listThreads()).toMatchObject([{ thread, latestStep: 3 }]);
      expect(await contenders.exit()).toEqual(Array(CONTENDERS).fill(0));
    } finally {
      contenders.kill();
      await checkpointer.close();
    }
  });
});
