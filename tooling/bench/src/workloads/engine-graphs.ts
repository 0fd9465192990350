import type { Checkpointer } from '@flow/core';
import { END, START, StateGraph } from '@flow/graph';
import {
  Annotation,
  END as LG_END,
  START as LG_START,
  StateGraph as LgStateGraph,
} from '@langchain/langgraph';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { type ChatState, type Message, makeMessage } from '../data.js';

/** What one engine run must end with; a run that ends elsewhere fails the workload. */
export interface Expected {
  n?: number;
  messages?: number;
}

/** Runs one thread to its end and checks the result; `durability` applies to LangGraph only. */
export type RunThread = (thread: string) => Promise<void>;

function check(state: { n?: number; messages?: unknown[] }, want: Expected, where: string): void {
  if (want.n !== undefined && state.n !== want.n)
    throw new Error(`${where}: ended with n=${state.n}, want ${want.n}`);
  if (want.messages !== undefined && state.messages?.length !== want.messages) {
    throw new Error(`${where}: ended with ${state.messages?.length} messages, want ${want.messages}`);
  }
}

/**
 * The W5 graph on @flow: nodes `a` and `b` take turns, each adding 1 to `n`, until `n` reaches `steps` —
 * exactly `steps` super-steps of trivial work (each node routes), so what is timed is the engine and its
 * checkpointer. `maxSteps` is exactly `steps`: one more super-step would fail the run.
 */
export function flowLoop(steps: number, checkpointer: Checkpointer | undefined): RunThread {
  const app = new StateGraph<{ n: number }>()
    .addNode('a', async (s) => ({ n: s.n + 1 }))
    .addNode('b', async (s) => ({ n: s.n + 1 }))
    .addEdge(START, 'a')
    .addConditionalEdges('a', (s) => (s.n < steps ? 'b' : END), ['b'])
    .addConditionalEdges('b', (s) => (s.n < steps ? 'a' : END), ['a'])
    .compile({ checkpointer, maxSteps: steps });
  return async (thread) => {
    const result = await app.invoke({ n: 0 }, { thread });
    check(result.state, { n: steps }, '@flow loop');
  };
}

/** The same graph on LangGraph.js. */
export function langgraphLoop(
  steps: number,
  checkpointer: BaseCheckpointSaver | undefined,
  durability: 'async' | 'sync',
): RunThread {
  const State = Annotation.Root({ n: Annotation<number>() });
  const app = new LgStateGraph(State)
    .addNode('a', async (s: { n: number }) => ({ n: s.n + 1 }))
    .addNode('b', async (s: { n: number }) => ({ n: s.n + 1 }))
    .addEdge(LG_START, 'a')
    .addConditionalEdges('a', (s: { n: number }) => (s.n < steps ? 'b' : LG_END), ['b', LG_END])
    .addConditionalEdges('b', (s: { n: number }) => (s.n < steps ? 'a' : LG_END), ['a', LG_END])
    .compile({ checkpointer });
  return async (thread) => {
    const state = await app.invoke(
      { n: 0 },
      { configurable: { thread_id: thread }, recursionLimit: steps + 10, durability },
    );
    check(state, { n: steps }, 'LangGraph loop');
  };
}

/**
 * The W6 graph on @flow: the same two-node loop, where each super-step appends one `msgBytes`-byte message
 * through a reducer, for `steps` super-steps.
 */
export function flowChat(steps: number, msgBytes: number, checkpointer: Checkpointer): RunThread {
  const say = async (s: ChatState) => ({ messages: [makeMessage(s.messages.length, msgBytes)] });
  const app = new StateGraph<ChatState>({ reducers: { messages: (a, b) => [...a, ...b] } })
    .addNode('a', say)
    .addNode('b', say)
    .addEdge(START, 'a')
    .addConditionalEdges('a', (s) => (s.messages.length < steps ? 'b' : END), ['b'])
    .addConditionalEdges('b', (s) => (s.messages.length < steps ? 'a' : END), ['a'])
    .compile({ checkpointer, maxSteps: steps });
  return async (thread) => {
    const result = await app.invoke({ messages: [] }, { thread });
    check(result.state, { messages: steps }, '@flow chat');
  };
}

/** The W6 graph on LangGraph.js, with its default durability. */
export function langgraphChat(steps: number, msgBytes: number, checkpointer: BaseCheckpointSaver): RunThread {
  const State = Annotation.Root({
    messages: Annotation<Message[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  });
  const say = async (s: ChatState) => ({ messages: [makeMessage(s.messages.length, msgBytes)] });
  const app = new LgStateGraph(State)
    .addNode('a', say)
    .addNode('b', say)
    .addEdge(LG_START, 'a')
    .addConditionalEdges('a', (s: ChatState) => (s.messages.length < steps ? 'b' : LG_END), ['b', LG_END])
    .addConditionalEdges('b', (s: ChatState) => (s.messages.length < steps ? 'a' : LG_END), ['a', LG_END])
    .compile({ checkpointer });
  return async (thread) => {
    const state = await app.invoke(
      { messages: [] },
      { configurable: { thread_id: thread }, recursionLimit: steps + 10 },
    );
    check(state, { messages: steps }, 'LangGraph chat');
  };
}
