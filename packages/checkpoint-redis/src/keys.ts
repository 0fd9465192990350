import { assertKeyPrefix } from './key-prefix.js';

/**
 * The key layout. Every key is `<prefix>:<kind>|<rest>`:
 *
 * | key | type | holds |
 * | --- | --- | --- |
 * | `<prefix>:cp\|<thread>` | hash | per step `N` one field `N`: revision, epoch ms, where the state is, the payload's length and the ids of the chunks the state references, then meta JSON, payload and a small state (scripts.ts; codec.ts's packStep). A step stored before layout 6 has six fields instead: `N:r` revision, `N:t` epoch ms, `N:m` meta JSON, `N:p` payload, `N:s` a small state, `N:f` the refs |
 * | `<prefix>:ch\|<thread>` | hash | the thread's chunks: field `<id>`, value the chunk's serialized text |
 * | `<prefix>:st\|<N>\|<thread>` | string | the state of step `N` when it is large |
 * | `<prefix>:in\|<thread>` | string | a put's incoming large state, for the instant between its `SET` and its script |
 * | `<prefix>:sx\|<thread>` | sorted set | the thread's step blocks: block `B` holds steps `128 B` to `128 B + 127` (score = member = B) |
 * | `<prefix>:sb\|<B>\|<thread>` | sorted set | the steps of block `B` (score = member = step): at most 128, so Redis keeps it a listpack |
 * | `<prefix>:steps\|<thread>` | sorted set | before layout 7, the thread's step numbers (score = member = step); its next put moves them to blocks |
 * | `<prefix>:head\|<thread>` | hash | the latest checkpoint's `step`, `status` and `i` (its summary text, as in the indexes), and `b` once a put of layout 7 wrote it (its steps are in blocks); before layout 6 also `ts` and `m` (its meta JSON) |
 * | `<prefix>:wr\|<N>\|<thread>` | hash | the writes of step `N`: field `<node>` U+0000 `<key>`, value the serialized write |
 * | `<prefix>:ws\|<thread>` | sorted set | the steps that have writes (score = member = step) |
 * | `<prefix>:lease\|<thread>` | hash | the lease: `owner`, `host`, `pid`, `exp` (epoch ms by Redis' clock); the key expires with it |
 * | `<prefix>:idx\|all` and `:idx\|running`, `:idx\|interrupted`, `:idx\|done`, `:idx\|failed` | sorted sets | thread ids, all scores 0 |
 * | `<prefix>:meta\|format` | string | the layout version |
 *
 * On a Redis Cluster (an ioredis `Cluster` client) every key but `meta|format` also has the hash tag
 * `{<prefix>#<bucket>}` right after `<kind>|` (see `keyLayout`), and the indexes are per bucket.
 *
 * Why this cannot collide: a prefix may hold `:` but never `|`, so the first `|` in a key ends
 * `<prefix>:<kind>`, and kinds hold neither `:` nor `|`. The thread id follows as-is (any Unicode, `|`, `:`,
 * `{`, `*`... included); it is never used in a pattern, only as a literal key or member. In a state key the
 * step comes first and is decimal digits, so the `|` after it ends it.
 *
 * Large states live in keys of their own, so a put never passes one through Lua: it `SET`s the state under
 * the `in` key and runs its script in the same `MULTI`, and the script `RENAME`s the key into place (or
 * deletes it on a conflict). Redis copies every script argument into a Lua string, far slower for a large
 * state than a `SET` (measured in tooling/bench/README.md). Small states go to the script as an argument and into the step's field:
 * the `MULTI` costs three more commands, which is more than copying a few kilobytes.
 */
/** The five thread indexes: every thread, then one per status. */
export interface IndexKeys {
  all: string;
  running: string;
  interrupted: string;
  done: string;
  failed: string;
}

export interface KeyLayout {
  readonly prefix: string;
  /** How many index buckets there are: 1 on a single node, `CLUSTER_BUCKETS` on a Redis Cluster. */
  readonly buckets: number;
  /** The bucket of a thread: its keys and its index entries share that bucket's hash slot. */
  bucketOf(thread: string): number;
  /** The hash tag of a bucket's keys, right after `<kind>|` ('' on a single node). */
  tag(bucket: number): string;
  /** Checkpoints of a thread (hash), all but their states. */
  checkpoints(thread: string): string;
  /** The state of one step (string). */
  state(thread: string, step: number): string;
  /** What `state(thread, step)` is with `<N>|<thread>` left off: Lua appends them. */
  statePrefix(thread: string): string;
  /** Where a put stages its state (string), inside its MULTI. */
  incoming(thread: string): string;
  /** The writes of one step (hash). */
  writes(thread: string, step: number): string;
  /** What `writes(thread, step)` is with `<N>|<thread>` left off: Lua appends them. */
  writesPrefix(thread: string): string;
  /** The steps of a thread that have writes (sorted set). */
  writeSteps(thread: string): string;
  /** The thread's chunks (hash: id to data), shared by its steps' states. */
  chunks(thread: string): string;
  /** The thread's lease (hash, expiring with the lease). */
  lease(thread: string): string;
  /** Step numbers of a thread before layout 7 (sorted set); now in blocks. */
  steps(thread: string): string;
  /** The blocks of a thread's step numbers (sorted set of block numbers). */
  stepBlocks(thread: string): string;
  /** The steps of one block (sorted set). */
  stepBlock(thread: string, block: number): string;
  /** What `stepBlock(thread, block)` is with `<B>|<thread>` left off: Lua appends them. */
  stepBlockPrefix(thread: string): string;
  /** Summary of a thread's latest checkpoint (hash). */
  head(thread: string): string;
  /** What `head(thread)` is with the thread id left off, for the threads of `bucket`: Lua appends the id. */
  headPrefix(bucket: number): string;
  /** The thread indexes of one bucket (sorted sets, all scores 0). */
  index(bucket: number): IndexKeys;
  /** The layout version marker. */
  readonly format: string;
}

/**
 * How many buckets a Redis Cluster layout spreads threads over. Each bucket is one hash tag, so one slot: a
 * thread's keys and its bucket's indexes sit together (every operation on a thread touches one slot), and
 * `listThreads` merges the buckets' pages. Fixed, since it decides where every key lives.
 */
export const CLUSTER_BUCKETS = 16;

/** FNV-1a over the UTF-16 units of `text`: cheap, stable across processes and releases. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * Builds the key layout for `prefix` after checking it against `/^[A-Za-z0-9_:.-]{1,64}$/`. With
 * `cluster: true` every key of a thread carries the hash tag `{<prefix>#<bucket>}` right after the kind:
 * a prefix holds no `{` or `}`, so that tag is the first `{…}` of the key, and Redis Cluster hashes only it.
 */
export function keyLayout(prefix: string, { cluster = false }: { cluster?: boolean } = {}): KeyLayout {
  assertKeyPrefix(prefix);
  const buckets = cluster ? CLUSTER_BUCKETS : 1;
  const tag = (bucket: number) => (cluster ? `{${prefix}#${bucket}}` : '');
  const bucketOf = cluster ? (thread: string) => fnv1a(thread) % CLUSTER_BUCKETS : () => 0;
  const key = (kind: string) => `${prefix}:${kind}|`;
  const at = (kind: string) => {
    const base = key(kind);
    return (thread: string) => base + tag(bucketOf(thread));
  };
  const cp = at('cp');
  const st = at('st');
  const incoming = at('in');
  const steps = at('steps');
  const head = key('head');
  const idx = key('idx');
  const wr = at('wr');
  const ws = at('ws');
  const lease = at('lease');
  const ch = at('ch');
  const sx = at('sx');
  const sb = at('sb');
  return {
    prefix,
    buckets,
    bucketOf,
    tag,
    checkpoints: (thread) => cp(thread) + thread,
    state: (thread, step) => `${st(thread)}${step}|${thread}`,
    statePrefix: st,
    incoming: (thread) => incoming(thread) + thread,
    writes: (thread, step) => `${wr(thread)}${step}|${thread}`,
    writesPrefix: wr,
    writeSteps: (thread) => ws(thread) + thread,
    lease: (thread) => lease(thread) + thread,
    chunks: (thread) => ch(thread) + thread,
    steps: (thread) => steps(thread) + thread,
    stepBlocks: (thread) => sx(thread) + thread,
    stepBlock: (thread, block) => `${sb(thread)}${block}|${thread}`,
    stepBlockPrefix: sb,
    head: (thread) => head + tag(bucketOf(thread)) + thread,
    headPrefix: (bucket) => head + tag(bucket),
    index: (bucket) => {
      const base = idx + tag(bucket);
      return {
        all: `${base}all`,
        running: `${base}running`,
        interrupted: `${base}interrupted`,
        done: `${base}done`,
        failed: `${base}failed`,
      };
    },
    format: `${key('meta')}format`,
  };
}

/** The keys of one thread, in the order the Lua scripts take them. */
export function threadKeys(keys: KeyLayout, thread: string): [string, string, string, string] {
  return [keys.checkpoints(thread), keys.steps(thread), keys.head(thread), keys.incoming(thread)];
}

/** The index keys of a thread's bucket, in the order the Lua scripts take them. */
export function indexKeys(keys: KeyLayout, thread: string): [string, string, string, string, string] {
  const { all, running, interrupted, done, failed } = keys.index(keys.bucketOf(thread));
  return [all, running, interrupted, done, failed];
}

const KINDS = [
  'cp',
  'st',
  'in',
  'steps',
  'sx',
  'sb',
  'head',
  'wr',
  'ws',
  'lease',
  'ch',
  'idx',
  'meta',
] as const;

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
