import { assertKeyPrefix } from '@flow/core';

/**
 * The key layout. Every key is `<prefix>:<kind>|<rest>`:
 *
 * | key | type | holds |
 * | --- | --- | --- |
 * | `<prefix>:cp\|<thread>` | hash | per step `N`: `N:r` revision, `N:t` epoch ms, `N:m` meta JSON, `N:p` payload, `N:s` a small state |
 * | `<prefix>:st\|<N>\|<thread>` | string | the state of step `N` when it is large |
 * | `<prefix>:in\|<thread>` | string | a put's incoming large state, for the instant between its `SET` and its script |
 * | `<prefix>:steps\|<thread>` | sorted set | the thread's step numbers (score = member = step) |
 * | `<prefix>:head\|<thread>` | hash | the latest checkpoint's summary: `step`, `status`, `ts`, `m` (its meta JSON) |
 * | `<prefix>:wr\|<N>\|<thread>` | hash | the writes of step `N`: field `<node>` U+0000 `<key>`, value the serialized write |
 * | `<prefix>:ws\|<thread>` | sorted set | the steps that have writes (score = member = step) |
 * | `<prefix>:lease\|<thread>` | hash | the lease: `owner`, `host`, `pid`, `exp` (epoch ms by Redis' clock); the key expires with it |
 * | `<prefix>:idx\|all` and `:idx\|running`, `:idx\|interrupted`, `:idx\|done`, `:idx\|failed` | sorted sets | thread ids, all scores 0 |
 * | `<prefix>:meta\|format` | string | the layout version |
 *
 * Why this cannot collide: a prefix may hold `:` but never `|`, so the first `|` in a key ends
 * `<prefix>:<kind>`, and kinds hold neither `:` nor `|`. The thread id follows as-is (any Unicode, `|`, `:`,
 * `{`, `*`... included); it is never used in a pattern, only as a literal key or member. In a state key the
 * step comes first and is decimal digits, so the `|` after it ends it.
 *
 * Large states live in keys of their own, so a put never passes one through Lua: it `SET`s the state under
 * the `in` key and runs its script in the same `MULTI`, and the script `RENAME`s the key into place (or
 * deletes it on a conflict). Redis copies every script argument into a Lua string, far slower for a large
 * state than a `SET` (measured in tooling/bench/README.md). Small states go to the script as an argument and into the hash:
 * the `MULTI` costs three more commands, which is more than copying a few kilobytes.
 */
export interface KeyLayout {
  readonly prefix: string;
  /** Checkpoints of a thread (hash), all but their states. */
  checkpoints(thread: string): string;
  /** The state of one step (string). */
  state(thread: string, step: number): string;
  /** What `state(thread, step)` is with `<N>|<thread>` left off: Lua appends them. */
  readonly statePrefix: string;
  /** Where a put stages its state (string), inside its MULTI. */
  incoming(thread: string): string;
  /** The writes of one step (hash). */
  writes(thread: string, step: number): string;
  /** What `writes(thread, step)` is with `<N>|<thread>` left off: Lua appends them. */
  readonly writesPrefix: string;
  /** The steps of a thread that have writes (sorted set). */
  writeSteps(thread: string): string;
  /** The thread's lease (hash, expiring with the lease). */
  lease(thread: string): string;
  /** Step numbers of a thread (sorted set). */
  steps(thread: string): string;
  /** Summary of a thread's latest checkpoint (hash). */
  head(thread: string): string;
  /** What `head(thread)` is with the thread id left off: Lua appends the id. */
  readonly headPrefix: string;
  /** Thread index keys, all scores 0: every thread, then one per status. */
  readonly index: { all: string; running: string; interrupted: string; done: string; failed: string };
  /** The layout version marker. */
  readonly format: string;
}

/** Builds the key layout for `prefix` after checking it against `/^[A-Za-z0-9_:.-]{1,64}$/`. */
export function keyLayout(prefix: string): KeyLayout {
  assertKeyPrefix(prefix);
  const key = (kind: string) => `${prefix}:${kind}|`;
  const cp = key('cp');
  const st = key('st');
  const incoming = key('in');
  const steps = key('steps');
  const head = key('head');
  const idx = key('idx');
  const wr = key('wr');
  const ws = key('ws');
  const lease = key('lease');
  return {
    prefix,
    checkpoints: (thread) => cp + thread,
    state: (thread, step) => `${st}${step}|${thread}`,
    statePrefix: st,
    incoming: (thread) => incoming + thread,
    writes: (thread, step) => `${wr}${step}|${thread}`,
    writesPrefix: wr,
    writeSteps: (thread) => ws + thread,
    lease: (thread) => lease + thread,
    steps: (thread) => steps + thread,
    head: (thread) => head + thread,
    headPrefix: head,
    index: {
      all: `${idx}all`,
      running: `${idx}running`,
      interrupted: `${idx}interrupted`,
      done: `${idx}done`,
      failed: `${idx}failed`,
    },
    format: `${key('meta')}format`,
  };
}

/** The keys of one thread, in the order the Lua scripts take them. */
export function threadKeys(keys: KeyLayout, thread: string): [string, string, string, string] {
  return [keys.checkpoints(thread), keys.steps(thread), keys.head(thread), keys.incoming(thread)];
}

/** The index keys, in the order the Lua scripts take them. */
export function indexKeys(keys: KeyLayout): [string, string, string, string, string] {
  const { all, running, interrupted, done, failed } = keys.index;
  return [all, running, interrupted, done, failed];
}

const KINDS = ['cp', 'st', 'in', 'steps', 'head', 'wr', 'ws', 'lease', 'idx', 'meta'] as const;

/**
 * SCAN/KEYS patterns matching exactly the keys of `prefix`, one per kind (`<prefix>:cp|*`...). A single
 * `<prefix>:*` would also match a longer prefix such as `<prefix>:x`; these cannot, since a prefix holds no `|`.
 */
export function keyPatterns(prefix: string): string[] {
  assertKeyPrefix(prefix);
  // Prefix characters are never glob-special; escape anyway so the rule does not depend on the regex.
  const escaped = prefix.replace(/[*?[\]\\]/g, '\\$&');
  return KINDS.map((kind) => `${escaped}:${kind}|*`);
}
