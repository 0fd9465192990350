import { END } from './constants.js';
import { GraphValidationError, NodeError } from './errors.js';
import type { Branch, GraphSpec } from './graph-spec.js';
import type { RouteTarget, State } from './types.js';

const q = JSON.stringify;

/**
 * A router returned a name it may not: the run fails (recorded on the thread like a node error, so a worker does
 * not take it again). Still a `GraphValidationError` (`INVALID_GRAPH`); `node` is the router's source node.
 */
export class MisroutedError extends GraphValidationError {
  constructor(
    readonly node: string,
    message: string,
  ) {
    super(message);
  }
}

/** Where a routing decision is made: for errors. */
export interface RouteSite {
  thread: string;
  step: number;
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

/** `found` with `name` added unless it is `END` or already there; the first name makes the list. */
function add<S extends State>(
  spec: GraphSpec<S>,
  found: string[] | undefined,
  name: unknown,
  branch: Branch<S>,
): string[] | undefined {
  if (name === END) return found;
  if (typeof name !== 'string' || !spec.nodes.has(name) || (branch.targets && !branch.targets.has(name))) {
    const allowed = branch.targets ? [...branch.targets, 'END'].join(', ') : 'a node name or END';
    throw new MisroutedError(
      branch.from,
      `the router after ${q(branch.from)} returned ${q(name) ?? String(name)}; expected ${allowed}`,
    );
  }
  if (found === undefined) return [name];
  if (!found.includes(name)) found.push(name);
  return found;
}

function routeError<S extends State>(branch: Branch<S>, site: RouteSite, cause: unknown): NodeError {
  return new NodeError({ node: branch.from, step: site.step, thread: site.thread, cause });
}

function later<S extends State>(branch: Branch<S>, site: RouteSite, picked: PromiseLike<RouteTarget>) {
  return Promise.resolve(picked).catch((cause: unknown) => {
    throw routeError(branch, site, cause);
  });
}

function route<S extends State>(
  branch: Branch<S>,
  state: S,
  site: RouteSite,
): RouteTarget | Promise<RouteTarget> {
  try {
    const picked = branch.router(state);
    // A sync router (the usual case) costs no promise, and no closure.
    return isPromiseLike(picked) ? later(branch, site, picked) : picked;
  } catch (cause) {
    throw routeError(branch, site, cause);
  }
}

function sortByDeclaration<S extends State>(spec: GraphSpec<S>, found: string[] | undefined): string[] {
  if (found === undefined) return [];
  if (found.length > 1) found.sort((a, b) => (spec.order.get(a) as number) - (spec.order.get(b) as number));
  return found;
}

function addPicked<S extends State>(
  spec: GraphSpec<S>,
  found: string[] | undefined,
  picked: RouteTarget,
  branch: Branch<S>,
): string[] | undefined {
  if (!Array.isArray(picked)) return add(spec, found, picked, branch);
  let out = found;
  for (const name of picked) out = add(spec, out, name, branch);
  return out;
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
  // Made by the first name found: a one-node frontier is a one-element array, not a grown empty one.
  let found: string[] | undefined;
  let pending: { branch: Branch<S>; picked: Promise<RouteTarget> }[] | undefined;
  try {
    for (const from of ran) {
      const fixed = spec.edges.get(from);
      if (fixed !== undefined) {
        for (const to of fixed) {
          if (found === undefined) found = [to];
          else if (!found.includes(to)) found.push(to);
        }
      }
      const branches = spec.branches.get(from);
      if (branches === undefined) continue;
      for (const branch of branches) {
        const picked = route(branch, state, site);
        if (!isPromiseLike(picked)) found = addPicked(spec, found, picked, branch);
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
    let out = found;
    for (let i = 0; i < picks.length; i++) {
      out = addPicked(spec, out, picks[i] as RouteTarget, (waiting[i] as (typeof waiting)[number]).branch);
    }
    return sortByDeclaration(spec, out);
  });
}
