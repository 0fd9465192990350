import { END } from './constants.js';
import { GraphValidationError, NodeError } from './errors.js';
import type { Branch, GraphSpec } from './graph-spec.js';
import type { RouteTarget, State } from './types.js';

const q = JSON.stringify;

/** Where a routing decision is made: for errors. */
export interface RouteSite {
  thread: string;
  step: number;
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

function add<S extends State>(spec: GraphSpec<S>, found: string[], name: unknown, branch: Branch<S>): void {
  if (name === END) return;
  if (typeof name !== 'string' || !spec.nodes.has(name) || (branch.targets && !branch.targets.has(name))) {
    const allowed = branch.targets ? [...branch.targets, 'END'].join(', ') : 'a node name or END';
    throw new GraphValidationError(
      `the router after ${q(branch.from)} returned ${q(name) ?? String(name)}; expected ${allowed}`,
    );
  }
  if (!found.includes(name)) found.push(name);
}

function route<S extends State>(
  branch: Branch<S>,
  state: S,
  site: RouteSite,
): RouteTarget | Promise<RouteTarget> {
  const fail = (cause: unknown) =>
    new NodeError({ node: branch.from, step: site.step, thread: site.thread, cause });
  try {
    const picked = branch.router(state);
    // A sync router (the usual case) costs no promise.
    if (!isPromiseLike(picked)) return picked;
    return Promise.resolve(picked).catch((cause: unknown) => {
      throw fail(cause);
    });
  } catch (cause) {
    throw fail(cause);
  }
}

function sortByDeclaration<S extends State>(spec: GraphSpec<S>, found: string[]): string[] {
  if (found.length > 1) found.sort((a, b) => (spec.order.get(a) as number) - (spec.order.get(b) as number));
  return found;
}

function addPicked<S extends State>(
  spec: GraphSpec<S>,
  found: string[],
  picked: RouteTarget,
  branch: Branch<S>,
) {
  if (Array.isArray(picked)) for (const name of picked) add(spec, found, name, branch);
  else add(spec, found, picked, branch);
}

/**
 * The next frontier after `ran` (or the entry frontier, for `[START]`): static edges and each router's pick
 * on the updated state, deduplicated and sorted in declaration order. Synchronous (no promise) unless a
 * router is async.
 */
export function nextFrontier<S extends State>(
  spec: GraphSpec<S>,
  ran: readonly string[],
  state: S,
  site: RouteSite,
): string[] | Promise<string[]> {
  const found: string[] = [];
  let pending: { branch: Branch<S>; picked: Promise<RouteTarget> }[] | undefined;
  try {
    for (const from of ran) {
      const fixed = spec.edges.get(from);
      if (fixed !== undefined) for (const to of fixed) if (!found.includes(to)) found.push(to);
      const branches = spec.branches.get(from);
      if (branches === undefined) continue;
      for (const branch of branches) {
        const picked = route(branch, state, site);
        if (!isPromiseLike(picked)) addPicked(spec, found, picked, branch);
        else if (pending === undefined) pending = [{ branch, picked }];
        else pending.push({ branch, picked });
      }
    }
  } catch (error) {
    // Nobody will await the async routers already started: keep their failures from going unhandled.
    for (const p of pending ?? []) p.picked.catch(() => undefined);
    throw error;
  }
  if (pending === undefined) return sortByDeclaration(spec, found);
  const waiting = pending;
  return Promise.all(waiting.map((p) => p.picked)).then((picks) => {
    for (let i = 0; i < picks.length; i++) {
      addPicked(spec, found, picks[i] as RouteTarget, (waiting[i] as (typeof waiting)[number]).branch);
    }
    return sortByDeclaration(spec, found);
  });
}
