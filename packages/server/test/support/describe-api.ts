import type { Checkpointer } from '@flow/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandler, type FlowServer, serve } from '../../src/index.js';
import { type Answer, client, path } from './client.js';
import { clashGraph, loopGraph, reviewGraph, twoQuestionsGraph } from './graphs.mjs';
import { createStore, type StoreFixture, type StoreKind } from './stores.js';

const TOKEN = 'test-token-Zq9';
/** Thread ids with every character a path could mangle. */
const HOSTILE = ['a/b', '100%', 'with space', '🦉 owl', '?q=1#frag', 'a%2Fb', '..x/../y'];

/** An error answer of this code and status, with a message and never a stack. */
function expectError(answer: Answer, status: number, code: string) {
  expect({ status: answer.status, code: answer.body?.error?.code }).toEqual({ status, code });
  expect(typeof answer.body.error.message).toBe('string');
  expect(JSON.stringify(answer.body)).not.toMatch(/\n\s+at |\.ts:\d+|\.js:\d+/);
}

/**
 * Registers every route and error answer of the API against one kind of real store, over real HTTP. `fetch`
 * serves the handler wrapped in a plain function, so `serve` sees a Fetch handler like any other and every
 * answer goes through `Request` and `Response` (the handler's own path skips them).
 */
export function describeApi(kind: StoreKind, via: 'serve' | 'fetch' = 'serve'): void {
  describe(`the HTTP API on ${kind}${via === 'fetch' ? ', through the Fetch handler' : ''}`, () => {
    let fixture: StoreFixture;
    let stores: Checkpointer[];
    let server: FlowServer;
    let call: ReturnType<typeof client>;
    const runs = (...rest: (string | number)[]) => path('graphs', 'pipeline', 'runs', ...rest);
    const start = (thread: string, input: Record<string, unknown> = {}) =>
      call('POST', runs(), { input: { topic: 'owls', log: [], ...input }, thread });

    beforeAll(async () => {
      fixture = await createStore(kind);
      stores = [fixture.open(), fixture.open(), fixture.open(), fixture.open()];
      const handler = createHandler({
        graphs: {
          pipeline: reviewGraph(stores[0]!),
          loop: loopGraph(stores[1]!),
          clash: clashGraph(stores[2]!),
          questions: twoQuestionsGraph(stores[3]!),
        },
        token: TOKEN,
        maxBodyBytes: 4096,
      });
      server = await serve(via === 'fetch' ? (request) => handler(request) : handler, { port: 0 });
      call = client(server.url, TOKEN);
    });
    afterAll(async () => {
      await server?.close();
      for (const s of stores ?? []) await s.close();
      await fixture?.cleanup();
    });

    it('GET /api/graphs names every graph', async () => {
      const answer = await call('GET', '/api/graphs');
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        graphs: [{ name: 'pipeline' }, { name: 'loop' }, { name: 'clash' }, { name: 'questions' }],
      });
    });

    it('refuses a missing, wrong or malformed token with 401 UNAUTHORIZED, before reading the body', async () => {
      const anon = client(server.url, undefined);
      expectError(await anon('GET', '/api/graphs'), 401, 'UNAUTHORIZED');
      expectError(await client(server.url, 'nope')('GET', '/api/graphs'), 401, 'UNAUTHORIZED');
      expectError(await client(server.url, `${TOKEN}x`)('GET', '/api/graphs'), 401, 'UNAUTHORIZED');
      expectError(await anon('GET', '/api/graphs', undefined, { authorization: TOKEN }), 401, 'UNAUTHORIZED');
      expectError(
        await anon('GET', '/api/graphs', undefined, { authorization: `Basic ${TOKEN}` }),
        401,
        'UNAUTHORIZED',
      );
      // A body far over the limit: without the token it is never read, so the answer is 401, not 413.
      const big = await anon('POST', runs(), 'x'.repeat(100_000));
      expectError(big, 401, 'UNAUTHORIZED');
      expect(big.headers.get('www-authenticate')).toBe('Bearer');
      expectError(await anon('GET', '/api/nothing-here'), 401, 'UNAUTHORIZED');
    });

    it('answers unknown graphs and routes with 404 NOT_FOUND', async () => {
      expectError(await call('GET', path('graphs', 'nope', 'runs')), 404, 'NOT_FOUND');
      expectError(await call('GET', '/api/nothing'), 404, 'NOT_FOUND');
      expectError(await call('PUT', runs('x')), 404, 'NOT_FOUND');
      expectError(await call('GET', runs('x', 'nonsense')), 404, 'NOT_FOUND');
      expectError(await call('GET', runs('x', 'steps', 0, 'more')), 404, 'NOT_FOUND');
      expectError(await call('POST', '/api/graphs'), 404, 'NOT_FOUND');
      expectError(await call('GET', '/nothing.js'), 404, 'NOT_FOUND');
    });

    it('POST runs waits for the run and answers with its result, the question of an interrupt included', async () => {
      const answer = await start('started');
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        thread: 'started',
        status: 'interrupted',
        step: 2,
        state: { topic: 'owls', draft: 'A post about owls', log: ['drafted'] },
        interrupt: {
          node: 'review',
          payload: { question: 'Publish "A post about owls"?', options: ['approve', 'reject'] },
        },
      });
    });

    it('POST runs refuses bad JSON and bad arguments with 400 INVALID_ARGUMENT', async () => {
      expectError(await call('POST', runs(), '{"input":'), 400, 'INVALID_ARGUMENT');
      expectError(await call('POST', runs(), '[1]'), 400, 'INVALID_ARGUMENT');
      expectError(await call('POST', runs(), { input: 'text' }), 400, 'INVALID_ARGUMENT');
      expectError(await call('POST', runs(), { input: {}, thread: 7 }), 400, 'INVALID_ARGUMENT');
      expectError(await call('POST', runs(), { input: {}, thread: 'nul\u0000' }), 400, 'INVALID_ARGUMENT');
      expectError(await call('POST', runs(), { input: {}, wait: 'yes' }), 400, 'INVALID_ARGUMENT');
      expectError(await call('POST', runs(), Buffer.from([0x7b, 0xff, 0x7d])), 400, 'INVALID_ARGUMENT');
    });

    it('POST runs on an unfinished thread is 409 THREAD_BUSY', async () => {
      await start('busy');
      expectError(await start('busy'), 409, 'THREAD_BUSY');
    });

    it('racing starts of one new thread: one 200, the others 409', async () => {
      const answers = await Promise.all(Array.from({ length: 6 }, () => start('race-start')));
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses).toEqual([200, 409, 409, 409, 409, 409]);
      for (const a of answers.filter((x) => x.status === 409)) {
        expect(['THREAD_BUSY', 'CHECKPOINT_CONFLICT', 'ALREADY_RESUMED']).toContain(a.body.error.code);
      }
    });

    it('a failing node is 422 NODE_FAILED with the node and its message, never a stack', async () => {
      const answer = await start('fails', { failAt: 'draft' });
      expectError(answer, 422, 'NODE_FAILED');
      expect(answer.body.error.node).toBe('draft');
      expect(answer.body.error.message).toContain('draft');
    });

    it('a run past maxSteps is 422 STEP_LIMIT; clashing updates are 422 INVALID_UPDATE naming the nodes', async () => {
      const loop = await call('POST', path('graphs', 'loop', 'runs'), { input: {}, thread: 'spins' });
      expectError(loop, 422, 'STEP_LIMIT');
      expect(loop.body.error.node).toBeNull();
      const clash = await call('POST', path('graphs', 'clash', 'runs'), { input: {}, thread: 'clashes' });
      expectError(clash, 422, 'INVALID_UPDATE');
      expect(clash.body.error.node).toMatch(/left|right/);
    });

    it('a body over maxBodyBytes is 413 PAYLOAD_TOO_LARGE, declared or streamed', async () => {
      const declared = await call('POST', runs(), { input: { topic: 'x'.repeat(5000) } });
      expectError(declared, 413, 'PAYLOAD_TOO_LARGE');
      const chunk = new TextEncoder().encode(`{"input":{"topic":"${'y'.repeat(3000)}`);
      const body = new ReadableStream({
        start(controller) {
          controller.enqueue(chunk);
          controller.enqueue(chunk);
          controller.close();
        },
      });
      const response = await fetch(server.url + runs(), {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body,
        duplex: 'half',
      } as RequestInit);
      expect(response.status).toBe(413);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');
    });

    it('GET a run is its latest checkpoint as plain JSON; an unknown one is 404 THREAD_NOT_FOUND', async () => {
      await start('latest');
      const answer = await call('GET', runs('latest'));
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        thread: 'latest',
        step: 2,
        interrupted: true,
        interruptNode: 'review',
        next: ['review'],
        done: false,
        state: { draft: 'A post about owls' },
      });
      expectError(await call('GET', runs('no-such-run')), 404, 'THREAD_NOT_FOUND');
      expectError(await call('GET', runs('no-such-run', 'history')), 404, 'THREAD_NOT_FOUND');
      expectError(await call('GET', runs('no-such-run', 'steps', 0)), 404, 'THREAD_NOT_FOUND');
      expectError(await call('GET', runs('no-such-run', 'diff')), 404, 'THREAD_NOT_FOUND');
      expectError(await call('POST', runs('no-such-run', 'resume'), { answer: 1 }), 404, 'THREAD_NOT_FOUND');
      expectError(await call('DELETE', runs('no-such-run')), 404, 'THREAD_NOT_FOUND');
      expectError(await call('GET', `${runs()}/bad%E0%A4%A`), 400, 'INVALID_ARGUMENT');
    });

    it('thread ids round-trip percent-encoded: slashes, percent signs, spaces, emoji', async () => {
      for (const thread of HOSTILE) {
        expect((await start(thread)).body.thread).toBe(thread);
        const latest = await call('GET', runs(thread));
        expect({ status: latest.status, thread: latest.body.thread }).toEqual({ status: 200, thread });
        const history = await call('GET', runs(thread, 'history'));
        expect(history.body.checkpoints.map((c: { thread: string }) => c.thread)).toEqual([
          thread,
          thread,
          thread,
        ]);
        const resumed = await call('POST', runs(thread, 'resume'), { answer: 'approve' });
        expect({ status: resumed.status, thread: resumed.body.thread }).toEqual({ status: 200, thread });
      }
      const listed = await call('GET', runs(), undefined);
      const ids = listed.body.runs.map((r: { thread: string }) => r.thread);
      for (const thread of HOSTILE) expect(ids).toContain(thread);
    });

    it('GET runs lists ThreadInfo in pages, filtered by status, with next as the after of the next page', async () => {
      for (const t of ['p-1', 'p-2', 'p-3', 'p-4', 'p-5']) await start(t);
      await call('POST', runs('p-2', 'resume'), { answer: 'approve' });
      const first = await call('GET', `${runs()}?after=p-&limit=2`);
      expect(first.status).toBe(200);
      expect(first.body.runs.map((r: { thread: string }) => r.thread)).toEqual(['p-1', 'p-2']);
      expect(first.body.next).toBe('p-2');
      expect(first.body.runs[0]).toMatchObject({
        thread: 'p-1',
        latestStep: 2,
        interrupted: true,
        done: false,
      });
      expect(typeof first.body.runs[0].ts).toBe('string');
      const second = await call('GET', `${runs()}?after=p-2&limit=3`);
      expect(second.body.runs.map((r: { thread: string }) => r.thread)).toEqual(['p-3', 'p-4', 'p-5']);
      const done = await call('GET', `${runs()}?status=done&after=p-&limit=1000`);
      expect(
        done.body.runs
          .filter((r: { thread: string }) => r.thread.startsWith('p-'))
          .map((r: { thread: string }) => r.thread),
      ).toEqual(['p-2']);
      const waiting = await call('GET', `${runs()}?status=interrupted&after=p-&limit=1000`);
      expect(waiting.body.runs.map((r: { thread: string }) => r.thread)).toEqual(
        expect.arrayContaining(['p-1', 'p-3', 'p-4', 'p-5']),
      );
      expect(waiting.body.runs.every((r: { interrupted: boolean }) => r.interrupted)).toBe(true);
      const running = await call('GET', `${runs()}?status=running&limit=1000`);
      expect(running.status).toBe(200);
      expect(
        running.body.runs.every((r: { interrupted: boolean; done: boolean }) => !r.interrupted && !r.done),
      ).toBe(true);
      const failed = await call('GET', `${runs()}?status=failed&limit=1000`);
      expect(failed.status).toBe(200);
      expect(failed.body.runs.every((r: { failed: boolean }) => r.failed)).toBe(true);
      const last = await call('GET', `${runs()}?limit=1000`);
      expect(last.body.next).toBeNull();
      expectError(await call('GET', `${runs()}?status=sleeping`), 400, 'INVALID_ARGUMENT');
      expectError(await call('GET', `${runs()}?limit=0`), 400, 'INVALID_ARGUMENT');
      expectError(await call('GET', `${runs()}?limit=1001`), 400, 'INVALID_ARGUMENT');
      expectError(await call('GET', `${runs()}?limit=ten`), 400, 'INVALID_ARGUMENT');
    });

    it('GET history pages newest first with beforeStep and limit', async () => {
      await start('hist');
      await call('POST', runs('hist', 'resume'), { answer: 'approve' });
      const all = await call('GET', runs('hist', 'history'));
      const steps = all.body.checkpoints.map((c: { step: number }) => c.step);
      expect(steps).toEqual([...steps].sort((a, b) => b - a));
      expect(steps[0]).toBe(all.body.checkpoints[0].step);
      const page = await call('GET', `${runs('hist', 'history')}?beforeStep=${steps[1]}&limit=2`);
      expect(page.body.checkpoints.map((c: { step: number }) => c.step)).toEqual(steps.slice(2, 4));
      expectError(await call('GET', `${runs('hist', 'history')}?beforeStep=-1`), 400, 'INVALID_ARGUMENT');
      expectError(await call('GET', `${runs('hist', 'history')}?limit=x`), 400, 'INVALID_ARGUMENT');
    });

    it('GET steps/:step is that checkpoint; a step the thread lacks is 404 NOT_FOUND', async () => {
      await start('steps');
      const zero = await call('GET', runs('steps', 'steps', 0));
      expect(zero.body).toMatchObject({
        thread: 'steps',
        step: 0,
        next: ['draft'],
        state: { topic: 'owls' },
      });
      expectError(await call('GET', runs('steps', 'steps', 99)), 404, 'NOT_FOUND');
      expectError(await call('GET', runs('steps', 'steps', 'one')), 400, 'INVALID_ARGUMENT');
    });

    it('GET diff gives JSON Pointer changes; by default from the step before the latest', async () => {
      await start('diffs');
      await call('POST', runs('diffs', 'resume'), { answer: 'approve', patch: { 'a/b~c': 1 } });
      const latest = (await call('GET', runs('diffs'))).body.step;
      const byDefault = await call('GET', runs('diffs', 'diff'));
      expect(byDefault.status).toBe(200);
      expect(byDefault.body).toMatchObject({ from: latest - 1, to: latest });
      expect(byDefault.body.changes).toEqual([{ op: 'add', path: '/log/2', value: 'published' }]);
      const wide = await call('GET', `${runs('diffs', 'diff')}?from=0&to=${latest}`);
      expect(wide.body.changes).toEqual(
        expect.arrayContaining([
          { op: 'add', path: '/draft', value: 'A post about owls' },
          { op: 'add', path: '/a~1b~0c', value: 1 },
          { op: 'add', path: '/verdict', value: 'approve' },
        ]),
      );
      const first = await call('GET', `${runs('diffs', 'diff')}?to=0`);
      expect(first.body.from).toBeNull();
      expect(first.body.changes).toEqual(
        expect.arrayContaining([{ op: 'add', path: '/topic', value: 'owls' }]),
      );
      const back = await call('GET', `${runs('diffs', 'diff')}?from=${latest}&to=0`);
      expect(back.body.changes).toEqual(expect.arrayContaining([{ op: 'remove', path: '/verdict' }]));
      expectError(await call('GET', `${runs('diffs', 'diff')}?from=77`), 404, 'NOT_FOUND');
      expectError(await call('GET', `${runs('diffs', 'diff')}?to=x`), 400, 'INVALID_ARGUMENT');
    });

    it('POST resume answers once: 200 with the result, then 409 ALREADY_RESUMED', async () => {
      await start('answer');
      const first = await call('POST', runs('answer', 'resume'), { answer: { ok: true, note: 'fine' } });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({
        thread: 'answer',
        status: 'done',
        state: { verdict: { ok: true, note: 'fine' } },
      });
      expectError(await call('POST', runs('answer', 'resume'), { answer: 'again' }), 409, 'ALREADY_RESUMED');
      expectError(await call('POST', runs('answer', 'resume'), { patch: 'x' }), 400, 'INVALID_ARGUMENT');
      expectError(await call('POST', runs('answer', 'resume'), { interrupt: 5 }), 400, 'INVALID_ARGUMENT');
      expectError(await call('POST', runs('answer', 'resume'), 'not json'), 400, 'INVALID_ARGUMENT');
    });

    it('a late answer with the id shown for an answered question is 409, though the run waits again', async () => {
      const questions = (...rest: (string | number)[]) => path('graphs', 'questions', 'runs', ...rest);
      await call('POST', questions(), { input: { log: [] }, thread: 'q-late' });
      // What the inbox shows: the question of the latest checkpoint and its id.
      const shown = (await call('GET', questions('q-late'))).body;
      expect(shown).toMatchObject({ interrupted: true, interruptNode: 'ask', interruptPayload: 'first?' });
      expect(shown.interrupts).toEqual([
        { id: expect.stringMatching(/^int-/), node: 'ask', payload: 'first?' },
      ]);
      const first = shown.interrupts[0].id;
      // Another tab answers it; the run stops again, at the second question, with another id.
      const answered = await call('POST', questions('q-late', 'resume'), { answer: 'A', interrupt: first });
      expect(answered.body).toMatchObject({ status: 'interrupted', interrupt: { node: 'check' } });
      const now = (await call('GET', questions('q-late'))).body;
      expect(now.interrupts).toEqual([{ id: answered.body.interrupt.id, node: 'check', payload: 'second?' }]);
      expect(now.interrupts[0].id).not.toBe(first);
      // The late answer to the first question must not answer the second one.
      const late = await call('POST', questions('q-late', 'resume'), { answer: 'B', interrupt: first });
      expectError(late, 409, 'ALREADY_RESUMED');
      expect((await call('GET', questions('q-late'))).body).toMatchObject({
        step: now.step,
        interruptNode: 'check',
      });
      // History shows each stop with the id it had.
      const history = (await call('GET', questions('q-late', 'history'))).body.checkpoints;
      const stops = history.filter((cp: { interrupted: boolean }) => cp.interrupted);
      expect(stops.map((cp: { interrupts: { id: string }[] }) => cp.interrupts[0]!.id)).toEqual([
        now.interrupts[0].id,
        first,
      ]);
      const done = await call('POST', questions('q-late', 'resume'), {
        answer: 'C',
        interrupt: now.interrupts[0].id,
      });
      expect(done.body).toMatchObject({ status: 'done', state: { log: ['ask:A', 'check:C'] } });
    });

    it('POST resume with a patch amends the state first', async () => {
      await start('patched');
      const answer = await call('POST', runs('patched', 'resume'), {
        answer: 'approve',
        patch: { topic: 'bats' },
      });
      expect(answer.body.state.topic).toBe('bats');
    });

    it('a failing node on resume is 422 NODE_FAILED, and the run stays resumable', async () => {
      await start('fails-later', { failAt: 'publish' });
      const answer = await call('POST', runs('fails-later', 'resume'), { answer: 'approve' });
      expectError(answer, 422, 'NODE_FAILED');
      expect(answer.body.error.node).toBe('publish');
    });

    it('POST runs with wait: false enqueues for a worker (202 { thread }), ', async () => {
      const answer = await call('POST', runs(), {
        input: { topic: 'queued', log: [] },
        thread: 'queued-1',
        wait: false,
      });
      expect(answer).toMatchObject({ status: 202, body: { thread: 'queued-1' } });
      // Enqueued, not run: the thread exists and nothing ran past its input.
      const queued = await call('GET', runs('queued-1'));
      expect(queued.body).toMatchObject({ step: 0, done: false, interrupted: false });
    });

    it('POST fork makes a new thread from a step (201 with its latest checkpoint), ', async () => {
      await start('fork-src');
      expectError(await call('POST', runs('fork-src', 'fork'), { step: 'one' }), 400, 'INVALID_ARGUMENT');
      expectError(await call('POST', runs('fork-src', 'fork'), { step: 1, to: 5 }), 400, 'INVALID_ARGUMENT');
      // A step the thread does not have, in the body: a bad argument (404 NOT_FOUND is for a path's step).
      expectError(await call('POST', runs('fork-src', 'fork'), { step: 99 }), 400, 'INVALID_ARGUMENT');
      const answer = await call('POST', runs('fork-src', 'fork'), { step: 1, to: 'fork-dst/🦉' });
      expect(answer.status).toBe(201);
      expect(answer.body).toMatchObject({ thread: 'fork-dst/🦉', state: { draft: 'A post about owls' } });
      expect((await call('GET', runs('fork-dst/🦉'))).body.thread).toBe('fork-dst/🦉');
      expectError(await call('POST', runs('no-such', 'fork'), { step: 0 }), 404, 'THREAD_NOT_FOUND');
    });

    it('DELETE a run removes its history: { removed: n }', async () => {
      await start('doomed');
      const answer = await call('DELETE', runs('doomed'));
      expect(answer).toMatchObject({ status: 200, body: { removed: 3 } });
      expectError(await call('GET', runs('doomed')), 404, 'THREAD_NOT_FOUND');
    });

    it('DELETE of a run that a call is running (its lease live) is 409 THREAD_BUSY and removes nothing', async () => {
      // A run in flight would write its next step into the deleted thread, which would come back without
      // its history: the thread's lease, as a worker or another server holds it while running it.
      await start('leased');
      const store = stores[0]!;
      expect(await store.acquireLease('leased', { owner: 'a-worker', ttlMs: 30_000 })).toBeDefined();
      expectError(await call('DELETE', runs('leased')), 409, 'THREAD_BUSY');
      expect((await call('GET', runs('leased'))).body).toMatchObject({ thread: 'leased', step: 2 });
      await store.releaseLease('leased', 'a-worker');
      expect(await call('DELETE', runs('leased'))).toMatchObject({ status: 200, body: { removed: 3 } });
      // The delete's own hold on the thread is gone with it: a new run of that id starts at once.
      expect((await start('leased')).status).toBe(200);
    });

    it('answers API errors as JSON that is never cached, and sends no CORS headers unless configured', async () => {
      const answer = await call('GET', '/api/graphs', undefined, { origin: 'https://evil.example' });
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      expect([...answer.headers.keys()].filter((k) => k.startsWith('access-control'))).toEqual([]);
    });
  });
}
