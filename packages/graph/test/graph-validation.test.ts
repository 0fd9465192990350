import { describe, expect, it } from 'vitest';
import { END, GraphValidationError, START, StateGraph } from '../src/index.js';

type S = { n: number };
const noop = () => undefined;

function invalid(build: () => unknown, message: RegExp) {
  let error: unknown;
  try {
    build();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(GraphValidationError);
  expect(error).toMatchObject({ code: 'INVALID_GRAPH', name: 'GraphValidationError' });
  expect((error as Error).message).toMatch(message);
}

describe('graph validation', () => {
  it('addNode rejects a duplicate name', () => {
    invalid(() => new StateGraph<S>().addNode('a', noop).addNode('a', noop), /already defined/);
  });

  it('addNode rejects the reserved names START and END, and an empty name', () => {
    invalid(() => new StateGraph<S>().addNode(START, noop), /reserved/);
    invalid(() => new StateGraph<S>().addNode(END, noop), /reserved/);
    invalid(() => new StateGraph<S>().addNode('', noop), /non-empty/);
  });

  it('compile rejects an edge naming an unknown node, on either end', () => {
    invalid(
      () => new StateGraph<S>().addNode('a', noop).addEdge(START, 'a').addEdge('a', 'b').compile(),
      /"b"/,
    );
    invalid(
      () => new StateGraph<S>().addNode('a', noop).addEdge(START, 'a').addEdge('x', 'a').compile(),
      /"x"/,
    );
    invalid(() => new StateGraph<S>().addEdge(START, 'ghost').compile(), /"ghost"/);
  });

  it('compile rejects conditional edges from unknown nodes or to unknown targets', () => {
    const base = () => new StateGraph<S>().addNode('a', noop).addEdge(START, 'a');
    invalid(
      () =>
        base()
          .addConditionalEdges('x', () => END)
          .compile(),
      /"x"/,
    );
    invalid(
      () =>
        base()
          .addConditionalEdges('a', () => END, ['nope'])
          .compile(),
      /"nope"/,
    );
  });

  it('compile rejects a graph with no edge from START', () => {
    invalid(() => new StateGraph<S>().addNode('a', noop).compile(), /START/);
  });

  it('accepts a conditional edge from START as the entry', async () => {
    const app = new StateGraph<S>()
      .addNode('a', () => ({ n: 1 }))
      .addNode('b', () => ({ n: 2 }))
      .addConditionalEdges(START, (s) => (s.n > 0 ? 'b' : 'a'), ['a', 'b'])
      .compile();
    expect((await app.invoke({ n: 0 })).state).toEqual({ n: 1 });
    expect((await app.invoke({ n: 5 })).state).toEqual({ n: 2 });
  });

  it('compile rejects unreachable nodes when every conditional edge declares its targets', () => {
    invalid(
      () =>
        new StateGraph<S>()
          .addNode('a', noop)
          .addNode('b', noop)
          .addNode('island', noop)
          .addEdge(START, 'a')
          .addConditionalEdges('a', () => 'b', ['b'])
          .compile(),
      /"island"/,
    );
  });

  it('accepts nodes reachable only through declared targets, and skips the check when a router has none', () => {
    const reachable = new StateGraph<S>()
      .addNode('a', noop)
      .addNode('b', noop)
      .addEdge(START, 'a')
      .addConditionalEdges('a', () => 'b', ['b']);
    expect(() => reachable.compile()).not.toThrow();
    const open = new StateGraph<S>()
      .addNode('a', noop)
      .addNode('maybe', noop)
      .addEdge(START, 'a')
      .addConditionalEdges('a', () => 'maybe');
    expect(() => open.compile()).not.toThrow();
  });

  it('compile rejects an interruptBefore naming an unknown node', () => {
    invalid(
      () =>
        new StateGraph<S>()
          .addNode('a', noop)
          .addEdge(START, 'a')
          .compile({ interruptBefore: ['b'] }),
      /interruptBefore/,
    );
  });

  it('rejects edges out of END or into START', () => {
    invalid(() => new StateGraph<S>().addEdge(END, 'a'), /END/);
    invalid(() => new StateGraph<S>().addEdge('a', START), /START/);
    invalid(() => new StateGraph<S>().addConditionalEdges('a', () => END, [START]), /START/);
  });

  it('rejects a bad maxSteps or redactor with InvalidArgumentError', () => {
    const g = new StateGraph<S>().addNode('a', noop).addEdge(START, 'a');
    expect(() => g.compile({ maxSteps: 0 })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => g.compile({ maxSteps: 1.5 })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => g.compile({ redactor: 'x' as never })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });

  it('starts the messages of bad arguments with [flow:graph], as every @flow package does', async () => {
    const g = new StateGraph<S>().addNode('a', noop).addEdge(START, 'a');
    expect(() => g.compile({ redactor: 'x' as never })).toThrow(
      /^\[flow:graph\] redactor must be a function/,
    );
    expect(() => g.compile({ interruptBefore: 'a' as never })).toThrow(/^\[flow:graph\] interruptBefore/);
    await expect(g.compile().invoke(1 as never)).rejects.toThrow(/^\[flow:graph\] input must be an object/);
  });

  it('compiles an independent snapshot: later changes to the builder do not reach it', async () => {
    const g = new StateGraph<S>().addNode('a', () => ({ n: 1 })).addEdge(START, 'a');
    const app = g.compile();
    g.addNode('b', () => ({ n: 2 })).addEdge('a', 'b');
    expect((await app.invoke({ n: 0 })).state).toEqual({ n: 1 });
    expect((await g.compile().invoke({ n: 0 })).state).toEqual({ n: 2 });
  });
});
