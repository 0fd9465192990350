import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { allBackends } from './support/backends.js';

const run = promisify(execFile);
const script = fileURLToPath(new URL('./fixtures/interrupt-graph.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'flow-langgraph-calls-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function graphProcess(mode: 'run' | 'resume', opener: unknown, thread: string, calls: string) {
  const { stdout } = await run(process.execPath, [script, mode, JSON.stringify(opener), thread, calls]);
  return JSON.parse(stdout.trim().split('\n').at(-1) as string);
}

const counts = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .reduce<Record<string, number>>((acc, name) => {
      acc[name] = (acc[name] ?? 0) + 1;
      return acc;
    }, {});

const crossProcess = allBackends().filter((b) => b.name !== 'memory');

describe.each(crossProcess)(
  'a LangGraph.js graph interrupted in one process resumes in another on $name',
  (backend) => {
    it('keeps the finished sibling, answers the interrupt, and shows the run in @flow', async () => {
      const { store, opener } = await backend.create();
      const thread = `order/42 ${backend.name}`;
      const calls = join(dir, `${backend.name}.calls`);

      const first = await graphProcess('run', opener, thread, calls);
      expect(first.interrupts).toEqual([{ question: 'ship it?' }]);
      expect(counts(calls)).toEqual({ work: 1, ask: 1 });
      // @flow's view: one thread for the LangGraph thread, waiting for a human, the question as its payload.
      const [info] = await store.listThreads();
      expect(info).toMatchObject({ thread, interrupted: true, done: false });
      expect(await store.get(thread)).toMatchObject({
        interruptNode: 'ask',
        interruptPayload: { question: 'ship it?' },
      });

      const second = await graphProcess('resume', opener, thread, calls);
      expect(second.interrupts).toEqual([]);
      // LangGraph applies a super-step's writes in task-path order: `ask` before `work`, as on its own savers.
      expect(second.state.log).toEqual(['ask:yes', 'work', 'finish:2']);
      // The LangChain message written in the first process comes back as a message in the second.
      expect(second.state.messages).toEqual([
        { type: 'human', content: 'hello', id: 'm-hello' },
        { type: 'ai', content: 'worked', id: 'm-work' },
      ]);
      // `work` finished before the interrupt: its stored writes were used, it did not run again.
      expect(counts(calls)).toEqual({ work: 1, ask: 2, finish: 1 });
      expect((await store.listThreads()).map((t) => [t.thread, t.done, t.interrupted])).toEqual([
        [thread, true, false],
      ]);
    }, 60_000);
  },
);
