import { readdirSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileCheckpointer } from '@flow/checkpoint-file';
import type { Checkpointer } from '@flow/core';
import { HumanMessage } from '@langchain/core/messages';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { FlowSaver } from '../src/index.js';
import { allBackends } from './support/backends.js';

type Kind = 'plain strings' | 'LangChain messages';
const text = (i: number) => `message ${i}: ${'lorem ipsum '.repeat(25)}`;
const message = (kind: Kind, i: number) => (kind === 'plain strings' ? text(i) : new HumanMessage(text(i)));

/** A conversation that gains one ~300-character message per super-step, for `steps` super-steps. */
function chat(saver: FlowSaver, kind: Kind, steps: number) {
  const State = Annotation.Root({
    msgs: Annotation<unknown[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  });
  return new StateGraph(State)
    .addNode('say', async (s) => ({ msgs: [message(kind, s.msgs.length)] }))
    .addEdge(START, 'say')
    .addConditionalEdges('say', (s) => (s.msgs.length < steps ? 'say' : END), ['say', END])
    .compile({ checkpointer: saver });
}

const run = (saver: FlowSaver, kind: Kind, steps: number, thread: string) =>
  chat(saver, kind, steps).invoke(
    { msgs: [] },
    { configurable: { thread_id: thread }, recursionLimit: steps + 5 },
  );

function bytesUnder(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  return total;
}

/** The bytes a FileCheckpointer holds after one conversation of `steps` super-steps. */
async function storedBytes(kind: Kind, steps: number): Promise<number> {
  const root = await mkdtemp(join(tmpdir(), 'flow-lg-growth-'));
  const store = new FileCheckpointer(root);
  try {
    await run(new FlowSaver(store), kind, steps, 'chat');
    return bytesUnder(root);
  } finally {
    await store.close();
    await rm(root, { recursive: true, force: true });
  }
}

describe.each<Kind>(['plain strings', 'LangChain messages'])('a LangGraph conversation of %s', (kind) => {
  it('stores bytes that grow linearly with its steps: twice the steps, at most 2.5× the bytes', async () => {
    // Each step's list stored whole would make this about 4× (every message once per later step).
    const [short, long] = [await storedBytes(kind, 40), await storedBytes(kind, 80)];
    expect(long / short).toBeLessThan(2.5);
  });

  describe.each(allBackends())('on $name', (backend) => {
    it('reads every checkpoint of the thread back exactly, each with its own messages', async () => {
      const { store } = await backend.create();
      const saver = new FlowSaver(store as Checkpointer);
      await run(saver, kind, 30, 'exact');
      const seen: number[] = [];
      for await (const tuple of saver.list({ configurable: { thread_id: 'exact' } })) {
        const msgs = (tuple.checkpoint.channel_values.msgs ?? []) as unknown[];
        seen.push(msgs.length);
        for (const [i, m] of msgs.entries()) {
          if (kind === 'plain strings') {
            expect(m).toBe(text(i));
          } else {
            expect(m).toBeInstanceOf(HumanMessage);
            expect((m as HumanMessage).content).toBe(text(i));
          }
        }
      }
      // Newest first, each a step longer than the one before it; the input checkpoint has no list yet.
      expect(seen.slice(0, 30)).toEqual(Array.from({ length: 30 }, (_, i) => 30 - i));
    });
  });
});
