import { type Checkpoint, type Checkpointer, FlowError, isFlowError } from '@flow/core';
import { isObjectLike } from './apply-updates.js';
import { GraphValidationError } from './errors.js';
import type { State } from './types.js';

const q = JSON.stringify;

/** Turns a state written at version `v` into the shape of version `v + 1`. */
export type StateMigration = (state: any) => State | Promise<State>;

/** The state-version options of `compile()`. */
export interface StateVersionOptions {
  /**
   * The version of the state's shape this graph reads and writes, recorded in every checkpoint's
   * `meta.stateVersion`. Checkpoints without one count as version 1. @default 1
   */
  stateVersion?: number;
  /**
   * `migrate[v]` turns a state of version `v` into version `v + 1`; loading an older state runs each in turn up
   * to `stateVersion` before any node (or `getState`/`history`) sees it. @default {}
   */
  migrate?: Readonly<Record<number, StateMigration>>;
}

/**
 * A stored state is newer than this graph, no migration leads from its version to the graph's, or one threw
 * (its error is the `cause`) or returned a non-object.
 */
export class StateVersionError extends FlowError {
  readonly thread: string;
  readonly step: number;
  /** The version the checkpoint was written with. */
  readonly found: number;
  /** The graph's `stateVersion`. */
  readonly expected: number;

  constructor(args: {
    thread: string;
    step: number;
    found: number;
    expected: number;
    detail: string;
    cause?: unknown;
  }) {
    super(
      'STATE_VERSION',
      `[flow:graph] thread ${q(args.thread)} step ${args.step}: state version ${args.found}, graph version ${args.expected}: ${args.detail}`,
      'cause' in args ? { cause: args.cause } : undefined,
    );
    this.thread = args.thread;
    this.step = args.step;
    this.found = args.found;
    this.expected = args.expected;
  }
}

/** What the engine keeps of the options: the version and the migrations by version. */
export interface StateVersioning {
  readonly version: number;
  readonly migrate: ReadonlyMap<number, StateMigration>;
}

const isVersion = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 1;

/** Checks `stateVersion` and `migrate` at compile time: a typo in a migration's key fails here, not on a load. */
export function stateVersioningOf(options: StateVersionOptions): StateVersioning {
  const version = options.stateVersion ?? 1;
  if (!isVersion(version))
    throw new GraphValidationError(
      `stateVersion must be an integer ≥ 1, got ${typeof version === 'number' ? String(version) : q(version)}`,
    );
  const migrate = new Map<number, StateMigration>();
  for (const [key, fn] of Object.entries(options.migrate ?? {})) {
    const from = Number(key);
    if (!isVersion(from) || from >= version) {
      throw new GraphValidationError(
        `migrate[${key}] does not lead to stateVersion ${version}: keys are the versions 1…${version - 1} a migration starts from`,
      );
    }
    if (typeof fn !== 'function') throw new GraphValidationError(`migrate[${key}] is not a function`);
    migrate.set(from, fn);
  }
  return { version, migrate };
}

/** The version a checkpoint was written with (1 when it records none). */
export function versionOf(cp: Checkpoint): number {
  const v = cp.meta.stateVersion;
  return v === undefined ? 1 : (v as number);
}

/** What a migration returned, for the error that refuses it. */
function shapeOf(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'string') return q(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return String(value);
}

/** `cp` with its state brought to the graph's version; rejects a newer state or a missing migration. */
export async function upgrade<C extends Checkpoint>(cp: C, versioning: StateVersioning): Promise<C> {
  const found = versionOf(cp);
  const { version: expected } = versioning;
  if (found === expected) return cp;
  const at = { thread: cp.thread, step: cp.step, found, expected };
  if (!isVersion(found))
    throw new StateVersionError({ ...at, detail: 'the recorded version is not an integer ≥ 1' });
  if (found > expected) {
    throw new StateVersionError({
      ...at,
      detail: 'the state is newer than this graph (deploy the newer graph)',
    });
  }
  let state: unknown = cp.state;
  for (let v = found; v < expected; v++) {
    const step = versioning.migrate.get(v);
    if (step === undefined)
      throw new StateVersionError({ ...at, detail: `no migrate[${v}] to go on from ${v}` });
    try {
      state = await step(state);
    } catch (error) {
      // A @flow error (a store the migration read, say) keeps its code; anything else is the migration's own
      // failure, told with the version it started from and the record it was migrating.
      if (isFlowError(error)) throw error;
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      throw new StateVersionError({ ...at, detail: `migrate[${v}] threw ${message}`, cause: error });
    }
    // A state is an object of keys: anything else (a migration that forgot its `return`) would be written on as the
    // run's state and lose every key, so it is refused here, before anything runs or is written.
    if (!isObjectLike(state)) {
      throw new StateVersionError({
        ...at,
        detail: `migrate[${v}] returned ${shapeOf(state)}, not an object of state keys`,
      });
    }
  }
  return cp.with({ state, meta: { ...cp.meta, stateVersion: expected, migratedFrom: found } }) as C;
}

/**
 * Where the engine puts the checkpoints it makes, and the meta each records: for a `versionedCheckpointer`,
 * the store behind it (its own put would only check the stamp again) and one frozen `{ stateVersion }` per graph
 * (the same object every time, so the store's encoding of it can be reused).
 */
export interface PutTarget {
  readonly store: Checkpointer;
  readonly stamp: Readonly<Record<string, unknown>> | undefined;
}
const targets = new WeakMap<Checkpointer, PutTarget>();

/** The put target of `checkpointer`: its store and stamp when it is versioned, else itself and no stamp. */
export function putTargetOf(checkpointer: Checkpointer): PutTarget {
  return targets.get(checkpointer) ?? { store: checkpointer, stamp: undefined };
}

/** `meta` with the target's stamp in it (the stamp itself when there is no other meta). */
export function stampedMeta(
  target: PutTarget,
  meta: Readonly<Record<string, unknown>> | undefined,
): Readonly<Record<string, unknown>> | undefined {
  const { stamp } = target;
  if (stamp === undefined) return meta;
  return meta === undefined ? stamp : { ...meta, ...stamp };
}

/**
 * The checkpointer as the engine sees it: every put records `meta.stateVersion`, and every get and list
 * brings older states up to date (and refuses newer ones). Every other method is the store's own.
 */
export function versionedCheckpointer(store: Checkpointer, versioning: StateVersioning): Checkpointer {
  const stamped = (cp: Checkpoint): Checkpoint => {
    if (cp.meta.stateVersion === versioning.version && !('migratedFrom' in cp.meta)) return cp;
    const { migratedFrom: _, ...meta } = cp.meta;
    return cp.with({ meta: { ...meta, stateVersion: versioning.version } });
  };
  const own: Partial<Checkpointer> = {
    put: (cp, opts) => store.put(stamped(cp), opts),
    get: async (thread, step) => {
      const cp = await store.get(thread, step);
      return cp && upgrade(cp, versioning);
    },
    list: async (thread, opts) =>
      Promise.all((await store.list(thread, opts)).map((cp) => upgrade(cp, versioning))),
  };
  const bound = new Map<PropertyKey, unknown>();
  const versioned = new Proxy(store, {
    get(target, prop) {
      if (Object.hasOwn(own, prop)) return own[prop as keyof Checkpointer];
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      let fn = bound.get(prop);
      if (fn === undefined) {
        fn = value.bind(target);
        bound.set(prop, fn);
      }
      return fn;
    },
  });
  targets.set(versioned, { store, stamp: Object.freeze({ stateVersion: versioning.version }) });
  return versioned;
}

/** A resume must not claim a run whose frontier names a node this graph no longer has. */
export function assertFrontierKnown(
  nodes: ReadonlyMap<string, unknown>,
  cp: { thread: string; step: number; next: readonly string[] },
): void {
  const missing = cp.next.filter((n) => !nodes.has(n));
  if (missing.length === 0) return;
  throw new GraphValidationError(
    `thread ${q(cp.thread)} step ${cp.step} goes on with ${missing.map((n) => q(n)).join(', ')}, ` +
      `which this graph does not have (renamed or deleted?): nothing was written`,
  );
}
