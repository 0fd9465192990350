import { assertThreadId, deleteIdleThread, type ThreadStatus, toPlainJson } from '@flow/core';
import { readJsonObject } from './body.js';
import type { Incoming, Outgoing } from './exchange.js';
import type { GraphEntry } from './graphs.js';
import { HttpError } from './http-error.js';
import { type Change, diffJson } from './json-diff.js';
import { choiceParam, intParam, invalid, objectField, stepParam } from './query.js';
import { checkpointJson, resultJson, threadInfoJson } from './render.js';
import { json } from './responses.js';

/** What a route gets: the request, its query, the graph and thread of its path, the body limit. */
export interface RouteContext {
  request: Incoming;
  query: URLSearchParams;
  graph: GraphEntry;
  /** The decoded thread id; `''` for the routes without one. */
  thread: string;
  maxBodyBytes: number;
}

type Route = (ctx: RouteContext) => Promise<Outgoing>;

/** The statuses a run list can be filtered by. */
export const RUN_STATUSES = ['running', 'interrupted', 'done', 'failed'] as const;

const DEFAULT_PAGE = 50;
const MAX_PAGE = 1000;
const DEFAULT_HISTORY = 100;

function threadNotFound(thread: string): HttpError {
  return new HttpError(404, 'THREAD_NOT_FOUND', `thread ${JSON.stringify(thread)} not found`);
}

function missingFeature(what: string): HttpError {
  return new HttpError(
    501,
    'NOT_IMPLEMENTED',
    `${what} needs a version of @flow/graph that has it; upgrade @flow/graph`,
  );
}

async function latestOrThrow(ctx: RouteContext) {
  const latest = await ctx.graph.app.getState(ctx.thread);
  if (latest === undefined) throw threadNotFound(ctx.thread);
  return latest;
}

const listRuns: Route = async ({ graph, query }) => {
  const status = choiceParam(query, 'status', RUN_STATUSES);
  const limit = intParam(query, 'limit', 1, MAX_PAGE) ?? DEFAULT_PAGE;
  const after = query.get('after') ?? undefined;
  if (after !== undefined && !after.isWellFormed()) throw invalid('after must be a well-formed thread id');
  // One more than the page tells whether there is a next one, without a second query.
  const opts = { after, limit: limit + 1, status: status as ThreadStatus | undefined };
  const rows = await (typeof graph.app.listRuns === 'function'
    ? graph.app.listRuns(opts)
    : graph.store.listThreads(opts));
  const page = rows.slice(0, limit);
  const next = rows.length > limit ? page[page.length - 1]!.thread : null;
  return json({ runs: page.map(threadInfoJson), next });
};

const startRun: Route = async ({ graph, request, maxBodyBytes }) => {
  const body = await readJsonObject(request, maxBodyBytes);
  const input = objectField(body, 'input') ?? {};
  const { thread, wait = true } = body;
  if (thread !== undefined) {
    if (typeof thread !== 'string') throw invalid('thread must be a string');
    assertThreadId(thread);
  }
  if (typeof wait !== 'boolean') throw invalid('wait must be a boolean');
  const options = thread === undefined ? {} : { thread };
  if (!wait) {
    if (typeof graph.app.enqueue !== 'function') throw missingFeature('wait: false (enqueue for a worker)');
    const queued = (await graph.app.enqueue(input, options)) as { thread?: string } | string | undefined;
    const id = typeof queued === 'string' ? queued : (queued?.thread ?? thread);
    return json({ thread: id }, 202);
  }
  return json(resultJson(await graph.app.invoke(input, options)));
};

const getRun: Route = async (ctx) => json(await checkpointJson(await latestOrThrow(ctx), ctx.graph));

const getHistory: Route = async (ctx) => {
  const { query, graph, thread } = ctx;
  const beforeStep = query.has('beforeStep') ? stepParam(query.get('beforeStep')!, 'beforeStep') : undefined;
  const limit = intParam(query, 'limit', 1, MAX_PAGE) ?? DEFAULT_HISTORY;
  const checkpoints = await graph.app.history(
    thread,
    beforeStep === undefined ? { limit } : { beforeStep, limit },
  );
  if (checkpoints.length === 0) await latestOrThrow(ctx);
  return json({ checkpoints: await Promise.all(checkpoints.map((cp) => checkpointJson(cp, graph))) });
};

async function stepOrThrow(ctx: RouteContext, step: number) {
  const cp = await ctx.graph.store.get(ctx.thread, step);
  if (cp !== undefined) return cp;
  await latestOrThrow(ctx);
  throw new HttpError(404, 'NOT_FOUND', `thread ${JSON.stringify(ctx.thread)} has no step ${step}`);
}

const getStep =
  (stepText: string): Route =>
  async (ctx) =>
    json(await checkpointJson(await stepOrThrow(ctx, stepParam(stepText, 'step')), ctx.graph));

const getDiff: Route = async (ctx) => {
  const { query, graph, thread } = ctx;
  const toParam = query.get('to');
  const fromParam = query.get('from');
  const to = toParam === null ? await latestOrThrow(ctx) : await stepOrThrow(ctx, stepParam(toParam, 'to'));
  let from = fromParam === null ? undefined : await stepOrThrow(ctx, stepParam(fromParam, 'from'));
  if (fromParam === null) {
    // The stored step before `to` (pruning may have left a gap); none before the first step.
    [from] = to.step === 0 ? [] : await graph.store.list(thread, { beforeStep: to.step, limit: 1 });
  }
  const changes: Change[] = diffJson(
    from === undefined ? {} : toPlainJson(from.state),
    toPlainJson(to.state),
  );
  return json({ from: from?.step ?? null, to: to.step, changes });
};

const resumeRun: Route = async ({ graph, thread, request, maxBodyBytes }) => {
  const body = await readJsonObject(request, maxBodyBytes);
  const patch = objectField(body, 'patch');
  const { answer, interrupt } = body;
  if (interrupt !== undefined && typeof interrupt !== 'string') {
    throw invalid('interrupt must be the id (a string) of the interrupt being answered');
  }
  const options: Record<string, unknown> = {};
  if (answer !== undefined) options.answer = answer;
  if (patch !== undefined) options.patch = patch;
  if (interrupt !== undefined) options.interrupt = interrupt;
  return json(resultJson(await graph.app.resume(thread, options)));
};

const forkRun: Route = async ({ graph, thread, request, maxBodyBytes }) => {
  const body = await readJsonObject(request, maxBodyBytes);
  const { step, to } = body;
  if (typeof step !== 'number') throw invalid('step must be a step number');
  stepParam(String(step), 'step');
  if (to !== undefined) {
    if (typeof to !== 'string') throw invalid('to must be a thread id (a string)');
    assertThreadId(to, 'to');
  }
  if (typeof graph.app.fork !== 'function') throw missingFeature('fork');
  const forked = (await graph.app.fork(thread, to === undefined ? { step } : { step, to })) as
    | { thread?: string }
    | string
    | undefined;
  const id = typeof forked === 'string' ? forked : (forked?.thread ?? to);
  if (id === undefined) throw new HttpError(500, 'INTERNAL', 'fork did not say which thread it made');
  const latest = await graph.app.getState(id);
  if (latest === undefined) throw threadNotFound(id);
  return json(await checkpointJson(latest, graph), 201);
};

/**
 * DELETE removes a thread only while holding its lease (core's `deleteIdleThread`): a run in flight (a
 * worker's, another server's) holds that lease and would write its next step into the deleted thread, which
 * would come back without its history. So a live lease is 409 THREAD_BUSY, and nothing is removed.
 */
const deleteRun: Route = async ({ graph, thread }) => {
  const result = await deleteIdleThread(graph.store, thread);
  if (!result.deleted) {
    throw new HttpError(
      409,
      'THREAD_BUSY',
      `thread ${JSON.stringify(thread)} is being run by another call (its lease is live): delete it once that run stops`,
    );
  }
  if (result.removed === 0) throw threadNotFound(thread);
  return json({ removed: result.removed });
};

/**
 * The route for a method and the path segments after `/api/graphs/:graph`, or undefined. `rest` holds
 * the raw (still percent-encoded) segments; the thread id is decoded by the caller.
 */
export function findRoute(
  method: string,
  rest: readonly string[],
): { route: Route; thread?: string } | undefined {
  const [runs, thread, action, step, ...extra] = rest;
  if (runs !== 'runs' || extra.length > 0) return undefined;
  if (thread === undefined) {
    if (method === 'GET') return { route: listRuns };
    if (method === 'POST') return { route: startRun };
    return undefined;
  }
  if (thread === '') return undefined;
  const pick = (route: Route | undefined) => (route === undefined ? undefined : { route, thread });
  if (action === undefined) {
    return pick(method === 'GET' ? getRun : method === 'DELETE' ? deleteRun : undefined);
  }
  if (step !== undefined) return action === 'steps' && method === 'GET' ? pick(getStep(step)) : undefined;
  if (method === 'GET' && action === 'history') return pick(getHistory);
  if (method === 'GET' && action === 'diff') return pick(getDiff);
  if (method === 'POST' && action === 'resume') return pick(resumeRun);
  if (method === 'POST' && action === 'fork') return pick(forkRun);
  return undefined;
}
