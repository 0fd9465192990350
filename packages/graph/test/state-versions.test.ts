import type { Checkpointer } from '@flow/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { END, GraphValidationError, START, StateGraph, StateVersionError } from '../src/index.js';
import { allBackends } from './support/backends.js';

// Version 1 keeps a name; version 2 splits it; version 3 adds a greeting. Each graph reads only its own shape.
type V1 = { name: string; log: string[] };
type V3 = { first: string; last: string; greeting: string; log: string[] };
const concat = (a: string[], b: string[]) => [...a, ...b];

// Every backend stores a checkpoint's `meta`, so the versions hold on all five.
const backends = allBackends();

describe.each(backends)('state versions on $name', ({ create }) => {
  let checkpointer: Checkpointer;
  let calls: string[];
  beforeEach(async () => {
    checkpointer = await create();
    calls = [];
  });
  afterEach(async () => {
    await checkpointer.close();
  });

  /** start → review (asks a human) → END, at version 1. */
  function v1() {
    return new StateGraph<V1>({ reducers: { log: concat } })
      .addNode('start', (s) => ({ log: [`start ${s.name}`] }))
      .addNode('review', (s, ctx) => ({ log: [`${s.name}: ${ctx.interrupt<string>('ok?')}`] }))
      .addEdge(START, 'start')
      .addEdge('start', 'review')
      .addEdge('review', END)
      .compile({ checkpointer });
  }

  const migrate = {
    1: (s: V1) => {
      calls.push('1→2');
      const [first = '', last = ''] = s.name.split(' ');
      return { first, last, log: s.log };
    },
    2: (s: Omit<V3, 'greeting'>) => {
      calls.push('2→3');
      return { ...s, greeting: `hello ${s.first}` };
    },
  };

  /** The same graph at version 3: its nodes would break on a version-1 state. */
  function v3(version = 3) {
    const read = (s: V3) => {
      if (typeof s.first !== 'string' || typeof s.greeting !== 'string')
        throw new Error(`old state ${JSON.stringify(s)}`);
      return s;
    };
    return new StateGraph<V3>({ reducers: { log: concat } })
      .addNode('start', (s) => ({ log: [`start ${read(s).first}`] }))
      .addNode('review', (s, ctx) => ({
        log: [`${read(s).greeting} ${s.last}: ${ctx.interrupt<string>('ok?')}`],
      }))
      .addEdge(START, 'start')
      .addEdge('start', 'review')
      .addEdge('review', END)
      .compile({ checkpointer, stateVersion: version, migrate: version === 3 ? migrate : { 1: migrate[1] } });
  }

  it('records the version in every checkpoint (1 by default)', async () => {
    await v1().invoke({ name: 'Ada Lovelace', log: [] }, { thread: 't' });
    const stored = await checkpointer.list('t');
    expect(stored.map((cp) => cp.meta.stateVersion)).toEqual(stored.map(() => 1));
  });

  it('migrates an interrupted run 1→2→3 before any node sees it, and writes on at version 3', async () => {
    const run = await v1().invoke({ name: 'Ada Lovelace', log: [] }, { thread: 't' });
    expect(run.status).toBe('interrupted');
    const app = v3();
    const result = await app.resume('t', { answer: 'yes' });
    expect(calls).toEqual(['1→2', '2→3']);
    expect(result.status).toBe('done');
    expect(result.state).toEqual({
      first: 'Ada',
      last: 'Lovelace',
      greeting: 'hello Ada',
      log: ['start Ada Lovelace', 'hello Ada Lovelace: yes'],
    });
    const stored = await checkpointer.list('t');
    // Old steps stay as written; the claim and the steps after it are version 3.
    expect(stored.map((cp) => cp.meta.stateVersion)).toEqual([3, 3, 1, 1, 1]);
    expect(stored[2]?.state).toEqual({ name: 'Ada Lovelace', log: ['start Ada Lovelace'] });
    // Reads through the graph see every step in the current shape, and say where it came from.
    const history = await app.history('t');
    // (Other engine facts in meta, such as a continuation's super-step, are not the point here.)
    const versions = history.map(({ meta }) => ({
      stateVersion: meta.stateVersion,
      migratedFrom: meta.migratedFrom,
    }));
    expect(versions).toEqual([
      { stateVersion: 3 },
      { stateVersion: 3 },
      { stateVersion: 3, migratedFrom: 1 },
      { stateVersion: 3, migratedFrom: 1 },
      { stateVersion: 3, migratedFrom: 1 },
    ]);
    expect(history[4]?.state).toEqual({ first: 'Ada', last: 'Lovelace', greeting: 'hello Ada', log: [] });
  });

  it('migrates a finished run for getState, history and a new invoke on the thread', async () => {
    await v1().invoke({ name: 'Grace Hopper', log: [] }, { thread: 'done' });
    await v1().resume('done', { answer: 'fine' });
    const app = v3();
    const latest = await app.getState('done');
    expect(latest?.state).toMatchObject({ first: 'Grace', greeting: 'hello Grace' });
    expect(latest?.meta).toEqual({ stateVersion: 3, migratedFrom: 1 });
    calls = [];
    const again = await app.invoke({ log: ['again'] }, { thread: 'done' });
    expect(calls).toEqual(['1→2', '2→3']);
    expect(again.status).toBe('interrupted');
    expect(again.state).toMatchObject({ first: 'Grace', last: 'Hopper', greeting: 'hello Grace' });
    expect(again.state.log).toEqual(['start Grace Hopper', 'Grace Hopper: fine', 'again', 'start Grace']);
  });

  it('runs only the migrations a version-2 state needs', async () => {
    const v2 = new StateGraph<{ first: string; last: string; log: string[] }>()
      .addNode('noop', () => ({}))
      .addEdge(START, 'noop')
      .compile({ checkpointer, stateVersion: 2, migrate: { 1: migrate[1] } });
    await v2.invoke({ first: 'Alan', last: 'Turing', log: [] }, { thread: 'two' });
    expect((await v3().getState('two'))?.state).toMatchObject({ greeting: 'hello Alan' });
    expect(calls).toEqual(['2→3']);
  });

  it('refuses a state newer than the graph with StateVersionError, writing nothing', async () => {
    await v3().invoke({ first: 'Ada', last: 'L', greeting: 'hi', log: [] }, { thread: 'new' });
    const before = await checkpointer.list('new');
    const older = v3(2);
    for (const attempt of [
      () => older.resume('new', { answer: 'x' }),
      () => older.getState('new'),
      () => older.history('new'),
    ]) {
      const error = await attempt().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StateVersionError);
      expect(error).toMatchObject({ code: 'STATE_VERSION', thread: 'new', found: 3, expected: 2 });
    }
    await v3().resume('new', { answer: 'ok' });
    const finished = await checkpointer.list('new');
    const error = await older.invoke({ log: [] }, { thread: 'new' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'STATE_VERSION' });
    expect(await checkpointer.list('new')).toEqual(finished);
    expect(finished.length).toBe(before.length + 2);
  });

  it('a missing migration on the way is a StateVersionError naming it', async () => {
    await v1().invoke({ name: 'a b', log: [] }, { thread: 'gap' });
    const app = new StateGraph<V3>()
      .addNode('start', () => ({}))
      .addEdge(START, 'start')
      .compile({ checkpointer, stateVersion: 3, migrate: { 2: migrate[2] } });
    await expect(app.getState('gap')).rejects.toThrow(/no migrate\[1\]/);
  });

  it.each([
    ['nothing', () => undefined, /returned undefined/],
    ['null', () => null, /returned null/],
    ['an array', () => [], /returned an array/],
    ['a number', async () => 5, /returned 5/],
  ])(
    'a migration that returns %s is a StateVersionError naming it, and nothing is written',
    async (_, fn, message) => {
      await v1().invoke({ name: 'Ada Lovelace', log: [] }, { thread: 'lost' });
      const before = await checkpointer.list('lost');
      const app = new StateGraph<V3>({ reducers: { log: concat } })
        .addNode('start', () => ({}))
        .addNode('review', (_s, ctx) => ({ log: [String(ctx.interrupt('ok?'))] }))
        .addEdge(START, 'start')
        .addEdge('start', 'review')
        .compile({ checkpointer, stateVersion: 3, migrate: { 1: migrate[1], 2: fn as never } });
      for (const attempt of [
        () => app.getState('lost'),
        () => app.history('lost'),
        () => app.resume('lost', { answer: 'yes' }),
        () => app.resume('lost'),
      ]) {
        const error = await attempt().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(StateVersionError);
        expect(error).toMatchObject({ code: 'STATE_VERSION', thread: 'lost', found: 1, expected: 3 });
        expect((error as Error).message).toMatch(/migrate\[2\]/);
        expect((error as Error).message).toMatch(message);
      }
      expect(await checkpointer.list('lost')).toEqual(before);
    },
  );

  it('a migration that throws is a StateVersionError naming its version and the record, the error as its cause', async () => {
    await v1().invoke({ name: 'Ada Lovelace', log: [] }, { thread: 'thrown' });
    const before = await checkpointer.list('thrown');
    const broken = new TypeError('no last name');
    const app = new StateGraph<V3>({ reducers: { log: concat } })
      .addNode('start', () => ({}))
      .addNode('review', (_s, ctx) => ({ log: [String(ctx.interrupt('ok?'))] }))
      .addEdge(START, 'start')
      .addEdge('start', 'review')
      .compile({
        checkpointer,
        stateVersion: 3,
        migrate: {
          1: migrate[1],
          2: async () => {
            throw broken;
          },
        },
      });
    for (const attempt of [
      () => app.getState('thrown'),
      () => app.history('thrown'),
      () => app.resume('thrown', { answer: 'yes' }),
    ]) {
      const error = await attempt().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StateVersionError);
      expect(error).toMatchObject({ code: 'STATE_VERSION', thread: 'thrown', found: 1, expected: 3 });
      expect((error as Error).message).toMatch(
        /thread "thrown" step \d: .*migrate\[2\] threw TypeError: no last name/,
      );
      expect((error as Error).cause).toBe(broken);
    }
    expect(await checkpointer.list('thrown')).toEqual(before);
  });

  it('refuses to resume a frontier that names a deleted node, before anything is written', async () => {
    await v1().invoke({ name: 'a b', log: [] }, { thread: 'gone' });
    const before = await checkpointer.list('gone');
    const renamed = new StateGraph<V1>()
      .addNode('start', () => ({}))
      .addNode('approve', () => ({}))
      .addEdge(START, 'start')
      .addEdge('start', 'approve')
      .compile({ checkpointer });
    const error = await renamed.resume('gone', { answer: 'yes' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GraphValidationError);
    expect((error as Error).message).toContain('"review"');
    expect(await checkpointer.list('gone')).toEqual(before);
  });
});

describe('compile({ stateVersion, migrate }) validation', () => {
  const graph = () => new StateGraph().addNode('a', () => ({})).addEdge(START, 'a');
  it.each([
    [{ stateVersion: 0 }, /stateVersion must be an integer/],
    [{ stateVersion: 1.5 }, /stateVersion must be an integer/],
    [{ stateVersion: Number.NaN }, /stateVersion must be an integer ≥ 1, got NaN/],
    [{ stateVersion: 2, migrate: { 2: () => ({}) } }, /migrate\[2\] does not lead/],
    [{ stateVersion: 2, migrate: { x: () => ({}) } }, /migrate\[x\] does not lead/],
    [{ stateVersion: 3, migrate: { 1: 'nope' } }, /migrate\[1\] is not a function/],
  ])('%o is a GraphValidationError', (options, message) => {
    expect(() => graph().compile(options as never)).toThrow(message);
    expect(() => graph().compile(options as never)).toThrow(GraphValidationError);
  });
});
