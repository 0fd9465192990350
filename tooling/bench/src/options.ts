import { parseArgs } from 'node:util';

/** The workloads, in the order they run. */
export const WORKLOADS = [
  'w1',
  'w2',
  'w3',
  'w4',
  'w5',
  'w6',
  'w7',
  'conc',
  'w9',
  'normal',
  'enc',
  'lease',
  'workers',
  'recovery',
  'lg',
] as const;
/**
 * One workload id: `w1`–`w7`, `conc` for the concurrency run, `enc` for the encrypted serializer's cost,
 * `lease`, `workers` and `recovery` for the cost of leases, worker throughput and recovery after a crash,
 * or `lg` for LangGraph.js graphs on `FlowSaver` against LangGraph's own savers.
 */
export type WorkloadId = (typeof WORKLOADS)[number];

/** The storage backends the bench compares. */
export const BACKENDS = ['memory', 'sqlite', 'postgres', 'redis', 'file'] as const;
/** One backend id. */
export type BackendId = (typeof BACKENDS)[number];

/** Every size the workloads use; each one has a `--<key>` flag (e.g. `--w1-threads 20`). */
export interface Sizes {
  /** W1: threads written one after another. */
  'w1-threads': number;
  /** W1: steps per thread. */
  'w1-steps': number;
  /** W1: state size at the last step, in KB (a message list that grows by one message per step). */
  'w1-kb': number;
  /** W2: threads of large state. */
  'w2-threads': number;
  /** W2: steps per thread. */
  'w2-steps': number;
  /** W2: state size, in KB. */
  'w2-kb': number;
  /** W3: rounds of "get the latest of every W1 thread" and of `list(thread, { limit })`. */
  'w3-rounds': number;
  /** W3: the `limit` of each `list` call. */
  'w3-limit': number;
  /** W4: threads listed by `listThreads()`. */
  'w4-threads': number;
  /** W4: steps per thread. */
  'w4-steps': number;
  /** W4: the small state, in KB. */
  'w4-small-kb': number;
  /** W4: the large state, in KB. */
  'w4-large-kb': number;
  /** W4: timed `listThreads()` calls per store (the median is reported). */
  'w4-reps': number;
  /** W5: super-steps per engine run. */
  'w5-steps': number;
  /** W5: timed runs per engine and store (the median is reported). */
  'w5-runs': number;
  /** W6: super-steps of the run whose bytes are measured. */
  'w6-steps': number;
  /** W6: bytes of the message each super-step appends. */
  'w6-msg-bytes': number;
  /** W9: steps of the thread whose state gains a tool output per step. */
  'w9-steps': number;
  /** W9: the state at step 0, in KB. */
  'w9-base-kb': number;
  /** W9: the tool output each step appends, in KB. */
  'w9-tool-kb': number;
  /** Concurrency: runs in parallel. */
  'conc-runs': number;
  /** Concurrency: steps per run. */
  'conc-steps': number;
  /** Concurrency: alternating rounds per store. */
  'conc-rounds': number;
  /** Connections in each Postgres pool (pg's own default is 10). */
  'pg-pool': number;
  /** Workers: runs enqueued per configuration of worker processes. */
  'workers-runs': number;
  /** Workers: super-steps per run. */
  'workers-steps': number;
  /** Workers: rounds of the 1, 2 and 4 process configurations. */
  'workers-rounds': number;
  /** Recovery: SIGKILLs timed per store (the median is reported). */
  'recovery-samples': number;
  /** Recovery: the lease length of the killed run, in ms. */
  'recovery-lease-ms': number;
}

/** The sizes of a full run: the ones the issue names. */
export const FULL_SIZES: Sizes = {
  'w1-threads': 50,
  'w1-steps': 20,
  'w1-kb': 2,
  'w2-threads': 10,
  'w2-steps': 10,
  'w2-kb': 512,
  'w3-rounds': 5,
  'w3-limit': 10,
  'w4-threads': 5000,
  'w4-steps': 3,
  'w4-small-kb': 1,
  'w4-large-kb': 256,
  'w4-reps': 15,
  'w5-steps': 200,
  'w5-runs': 7,
  'w6-steps': 200,
  'w6-msg-bytes': 200,
  'w9-steps': 200,
  'w9-base-kb': 100,
  'w9-tool-kb': 2,
  'conc-runs': 32,
  'conc-steps': 20,
  'conc-rounds': 3,
  'pg-pool': 10,
  'workers-runs': 200,
  'workers-steps': 10,
  'workers-rounds': 3,
  'recovery-samples': 5,
  'recovery-lease-ms': 3000,
};

/** The sizes of `--quick`: a smoke run of about a minute that exercises every workload and store. */
export const QUICK_SIZES: Sizes = {
  ...FULL_SIZES,
  'w1-threads': 8,
  'w1-steps': 10,
  'w2-threads': 2,
  'w2-steps': 3,
  'w3-rounds': 2,
  'w4-threads': 100,
  'w4-steps': 2,
  'w4-large-kb': 32,
  'w4-reps': 3,
  'w5-steps': 50,
  'w5-runs': 1,
  'w6-steps': 30,
  'w9-steps': 20,
  'conc-runs': 8,
  'conc-steps': 5,
  'conc-rounds': 1,
  'workers-runs': 16,
  'workers-rounds': 1,
  'recovery-samples': 1,
};

/** What one invocation of the bench does. */
export interface BenchOptions {
  quick: boolean;
  sizes: Sizes;
  workloads: readonly WorkloadId[];
  backends: readonly BackendId[];
  /** Where the JSON result goes; `undefined` with `--no-write`. */
  outDir: string | undefined;
  help: boolean;
}

/** Thrown for a flag the bench does not know or a value it cannot use; `main` prints it with the usage. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

const SIZE_KEYS = Object.keys(FULL_SIZES) as (keyof Sizes)[];

function parseList<T extends string>(value: string | undefined, allowed: readonly T[], flag: string): T[] {
  if (value === undefined) return [...allowed];
  const items = value
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  for (const item of items) {
    if (!allowed.includes(item as T)) {
      throw new UsageError(`--${flag}: unknown "${item}" (choose from ${allowed.join(', ')})`);
    }
  }
  // Keep the canonical order whatever order the user typed.
  return allowed.filter((a) => items.includes(a));
}

function parseSize(key: keyof Sizes, raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${key} needs a positive integer, got "${raw}"`);
  return n;
}

/**
 * Reads the command line. `--quick` picks the smoke sizes; any `--<size> N` flag overrides one size.
 *
 * @example
 * parseOptions(['--quick', '--only', 'w1,w5', '--backends', 'sqlite'], '/tmp/results');
 */
export function parseOptions(argv: readonly string[], defaultOutDir: string): BenchOptions {
  const sizeFlags = Object.fromEntries(SIZE_KEYS.map((k) => [k, { type: 'string' as const }]));
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: false,
      strict: true,
      options: {
        quick: { type: 'boolean' },
        only: { type: 'string' },
        backends: { type: 'string' },
        out: { type: 'string' },
        'no-write': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        ...sizeFlags,
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const v = parsed.values as Record<string, string | boolean | undefined>;
  const quick = v.quick === true;
  const sizes: Sizes = { ...(quick ? QUICK_SIZES : FULL_SIZES) };
  for (const key of SIZE_KEYS) {
    const raw = v[key];
    if (typeof raw === 'string') sizes[key] = parseSize(key, raw);
  }
  return {
    quick,
    sizes,
    workloads: parseList(v.only as string | undefined, WORKLOADS, 'only'),
    backends: parseList(v.backends as string | undefined, BACKENDS, 'backends'),
    outDir: v['no-write'] === true ? undefined : ((v.out as string | undefined) ?? defaultOutDir),
    help: v.help === true,
  };
}

/** The `--help` text. */
export function usage(): string {
  const sizeLines = SIZE_KEYS.map(
    (k) => `  --${k.padEnd(14)} N   (full ${FULL_SIZES[k]}, quick ${QUICK_SIZES[k]})`,
  );
  return [
    'usage: pnpm bench [--quick] [--only w1,...,w7,w9,normal,conc,enc,lease,workers,recovery,lg] [--backends memory,sqlite,postgres,redis,file]',
    '                  [--out DIR | --no-write] [--<size> N ...]',
    '',
    '  --quick            smoke sizes (about a minute); exits non-zero only when a workload throws',
    '  --only LIST        run only these workloads',
    '  --backends LIST    run only these stores',
    '  --out DIR          where the JSON result is written (default tooling/bench/results)',
    '  --no-write         print the tables only',
    '',
    'sizes:',
    ...sizeLines,
    '',
    'Postgres and Redis come from FLOW_TEST_POSTGRES_URL / FLOW_TEST_REDIS_URL, else the default local ports.',
  ].join('\n');
}
