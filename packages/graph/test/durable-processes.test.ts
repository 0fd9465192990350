import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Checkpointer } from '@flow/core';
import { beforeAll, describe, expect, it } from 'vitest';
import * as engine from '../src/index.js';
import { fanOut, sender, twoQuestions } from './fixtures/durable-graphs.mjs';
import { allBackends, type Backend, tempDir } from './support/backends.js';
import { type Child, runFixture } from './support/child.js';

// Real processes, killed with SIGKILL, on every backend a second process can open (memory lives in one).
const dir = tempDir();
let traces = 0;
const newTrace = () => {
  traces += 1;
  const path = join(dir, `trace-${traces}.log`);
  writeFileSync(path, '');
  return path;
};
const lines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean);

describe.each(allBackends().filter((b) => b.openInChild))(
  'durable nodes across processes on $name',
  (backend: Backend) => {
    let checkpointer: Checkpointer;
    let store: unknown;
    beforeAll(async () => {
      checkpointer = await backend.create();
      store = backend.openInChild?.(checkpointer);
    });

    const child = (graph: string, options: object, action: string, thread: string, extra?: object): Child =>
      runFixture(
        'durable-child.mjs',
        [store, graph, options, action, thread, extra ?? null].map((a) => JSON.stringify(a)),
      );

    async function killWhen(c: Child, pattern: RegExp, ready?: () => Promise<boolean>): Promise<void> {
      await c.line(pattern);
      if (ready) while (!(await ready())) await new Promise((r) => setTimeout(r, 10));
      c.process.kill('SIGKILL');
      expect(await c.exited).toMatchObject({ signal: 'SIGKILL' });
    }

    it('a process killed in a 3-node super-step after two nodes completed: on resume the two never run again', {
      timeout: 60_000,
    }, async () => {
      const trace = newTrace();
      const c = child('fanOut', { trace, hangIn: 'z' }, 'invoke', 'killed-fan');
      // Kill once x and y are stored (and z hangs).
      await killWhen(
        c,
        /^hanging in z/,
        async () => (await checkpointer.getWrites('killed-fan', 0)).length === 2,
      );
      const pid = c.process.pid;
      const app = fanOut(engine, checkpointer, { trace });
      expect(await app.getState('killed-fan')).toMatchObject({ step: 0, next: ['x', 'y', 'z'] });
      const done = await app.resume('killed-fan');
      expect(done.state.log).toEqual([`x@${pid}`, `y@${pid}`, `z@${process.pid}`]);
      expect(lines(trace).sort()).toEqual(
        [`run x ${pid}`, `run y ${pid}`, `run z ${pid}`, `run z ${process.pid}`].sort(),
      );
    });

    it('a task whose node is re-run 20 times by interrupts, errors and crashes calls its fn once', {
      timeout: 120_000,
    }, async () => {
      const trace = newTrace();
      const thread = 'twenty';
      const questions = 8;
      const errors = { left: 8 };
      const app = sender(engine, checkpointer, { trace, questions, errors });
      let stop = await app.invoke({ log: [] }, { thread });
      for (let k = 0; k < questions; k++) {
        expect(stop.interrupt?.payload).toEqual({ question: k });
        const next = await app
          .resume(thread, { answer: `a${k}`, interrupt: stop.interrupt?.id as string })
          .catch((e) => e);
        if (k < questions - 1) stop = next;
        else expect(next).toMatchObject({ code: 'NODE_FAILED' });
      }
      for (let e = 1; e < 8; e++)
        await expect(app.resume(thread)).rejects.toMatchObject({ code: 'NODE_FAILED' });
      for (let crash = 0; crash < 4; crash++) {
        const c = child('sender', { trace, questions, hang: true }, 'resume', thread);
        await killWhen(c, /^hanging in send/);
      }
      const done = await app.resume(thread);
      expect(done.status).toBe('done');
      const runs = lines(trace).filter((l) => l.startsWith('run send'));
      expect(runs.length).toBeGreaterThanOrEqual(20);
      expect(lines(trace).filter((l) => l.startsWith('send '))).toHaveLength(1);
      expect(done.state.log[0]).toMatch(/^sent receipt-flow-\S+ a0,a1,a2,a3,a4,a5,a6,a7$/);
    });

    it('8 processes race to answer each of two questions: exactly one wins each', {
      timeout: 90_000,
    }, async () => {
      const thread = 'raced-twice';
      const app = twoQuestions(engine, checkpointer);
      let stop = await app.invoke({ log: [] }, { thread });
      const winners: string[] = [];
      for (const round of [0, 1]) {
        const id = stop.interrupt?.id as string;
        const racers = Array.from({ length: 8 }, (_, i) =>
          child('twoQuestions', {}, 'resume', thread, {
            answer: `r${round}p${i}`,
            interrupt: id,
            waitForGo: true,
          }),
        );
        await Promise.all(racers.map((c) => c.line(/^ready$/)));
        for (const c of racers) c.process.stdin?.write('go\n');
        const outcomes = await Promise.all(racers.map(async (c) => JSON.parse(await c.line(/^\{/))));
        await Promise.all(racers.map((c) => c.exited));
        const won = outcomes.filter((o) => o.ok);
        expect(won).toHaveLength(1);
        expect(outcomes.filter((o) => !o.ok).map((o) => o.code)).toEqual(Array(7).fill('ALREADY_RESUMED'));
        winners.push(outcomes.indexOf(won[0]).toString());
        if (round === 0) {
          const latest = await app.getState(thread);
          expect(latest?.interruptPayload).toBe('second?');
          stop = { ...stop, interrupt: (await app.interrupts(thread))[0] as never };
        }
      }
      const final = await app.getState(thread);
      expect(final?.done).toBe(true);
      expect(final?.state.log).toHaveLength(1);
      expect(final?.state.log[0]).toMatch(new RegExp(`^r0p${winners[0]}\\+r1p${winners[1]}@\\d+$`));
    });

    it('a crash right after the claim does not lose the answer', { timeout: 60_000 }, async () => {
      const thread = 'claimed-then-killed';
      const app = twoQuestions(engine, checkpointer);
      const first = await app.invoke({ log: [] }, { thread });
      await app.resume(thread, { answer: 'A', interrupt: first.interrupt?.id as string });
      // The child claims with the second answer and dies before the super-step commits.
      const c = child('twoQuestions', { hangAfterAnswers: true }, 'resume', thread, { answer: 'B' });
      await killWhen(c, /^answered A,B/);
      const claim = await app.getState(thread);
      expect(claim).toMatchObject({ interrupted: false, next: ['ask'] });
      await expect(app.resume(thread, { answer: 'C' })).rejects.toMatchObject({ code: 'ALREADY_RESUMED' });
      const done = await app.resume(thread);
      expect(done.state.log).toEqual([`A+B@${process.pid}`]);
    });
  },
);
