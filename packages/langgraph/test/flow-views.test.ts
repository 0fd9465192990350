import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SqliteCheckpointer } from '@flow/checkpoint-sqlite';
import { END as FLOW_END, START as FLOW_START, StateGraph as FlowGraph } from '@flow/graph';
import { createHandler } from '@flow/server';
import { Annotation, END, interrupt, START, StateGraph } from '@langchain/langgraph';
import { afterAll, expect, it } from 'vitest';
import { FlowSaver } from '../src/index.js';

const run = promisify(execFile);
const flowBin = createRequire(import.meta.url)
  .resolve('@flow/cli/package.json')
  .replace('package.json', 'dist/bin.js');
const dir = mkdtempSync(join(tmpdir(), 'flow-langgraph-views-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('`flow threads`, `flow history` and the server list a LangGraph thread as one run with its status and step', async () => {
  const path = join(dir, 'runs.db');
  const store = new SqliteCheckpointer(path);
  const State = Annotation.Root({ answer: Annotation<string>() });
  const app = new StateGraph(State)
    .addNode('ask', async () => ({ answer: String(interrupt({ question: 'ship it?' })) }))
    .addEdge(START, 'ask')
    .addEdge('ask', END)
    .compile({ checkpointer: new FlowSaver(store) });
  await app.invoke({}, { configurable: { thread_id: 'lg order' } });

  const threads = await run(process.execPath, [flowBin, 'threads', '--store', `sqlite:${path}`, '--json']);
  expect(JSON.parse(threads.stdout)).toMatchObject([
    { thread: 'lg order', latestStep: 1, interrupted: true },
  ]);
  const history = await run(process.execPath, [flowBin, 'history', '--store', `sqlite:${path}`, 'lg order']);
  expect(history.stdout).toMatch(/^1\s+interrupted\s+ask\b/m);
  expect(history.stdout).toMatch(/^0\s+running\s+__start__\b/m);

  // The control plane lists runs from the store of any graph it serves.
  const any = new FlowGraph()
    .addNode('x', () => ({}))
    .addEdge(FLOW_START, 'x')
    .addEdge('x', FLOW_END)
    .compile({ checkpointer: store });
  const handler = createHandler({ graphs: { shared: any }, token: false });
  const runs = (await (await handler(new Request('http://localhost/api/graphs/shared/runs'))).json()) as {
    runs: unknown[];
  };
  expect(runs.runs).toMatchObject([{ thread: 'lg order', latestStep: 1, interrupted: true, done: false }]);
  const latest = await (
    await handler(new Request('http://localhost/api/graphs/shared/runs/lg%20order'))
  ).json();
  expect(latest).toMatchObject({
    interruptNode: 'ask',
    interruptPayload: { question: 'ship it?' },
  });
  await store.close();
});
