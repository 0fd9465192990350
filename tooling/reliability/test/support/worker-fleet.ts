import type { ChildOpener } from '@flow/checkpoint-conformance';
import { type Child, startChild } from './children.js';
import { expectLine, sleep } from './crash.js';
import type { Seeded } from './seeded.js';

/** Writes the store acknowledged to some worker: checkpoints by (thread, step), and per-step writes. */
export interface Acknowledged {
  /** `thread` → step → the stored `ts` the put resolved with. */
  puts: Map<string, Map<number, string>>;
  /** `thread` → step → the `node/key` of every write acknowledged there. */
  writes: Map<string, Map<number, Set<string>>>;
}

/**
 * Worker processes (`fixtures/chaos-worker.mjs`) on one store: started, killed with SIGKILL, replaced,
 * stopped. Every line they print is kept, so the acknowledged writes can be checked against the store.
 */
export class WorkerFleet {
  readonly #all: Child[] = [];
  readonly #live: Child[] = [];
  /** Ended without being killed or stopped by the fleet: a worker crashed on its own. */
  readonly #unexpected: string[] = [];
  #killing = new Set<Child>();
  kills = 0;

  constructor(
    readonly opener: ChildOpener,
    readonly taskLog: string,
    readonly leaseMs: number,
  ) {}

  /** Starts one more worker and waits until it runs. */
  async start(): Promise<void> {
    const id = `worker-${this.#all.length}`;
    const child = startChild('chaos-worker.mjs', [
      JSON.stringify(this.opener),
      this.taskLog,
      id,
      String(this.leaseMs),
    ]);
    this.#all.push(child);
    this.#live.push(child);
    void child.exited.then(({ code, signal }) => {
      if (!this.#killing.has(child))
        this.#unexpected.push(`${id} ended (${signal ?? code}): ${child.stderr()}`);
    });
    await expectLine(child, /^ready$/, 30_000);
  }

  /** SIGKILLs a random live worker and waits until it is gone (its pid no longer exists). */
  async killOne(random: Seeded): Promise<void> {
    const child = random.pick(this.#live);
    this.#live.splice(this.#live.indexOf(child), 1);
    this.#killing.add(child);
    child.process.kill('SIGKILL');
    await child.exited;
    this.kills++;
  }

  /** Throws if a worker ended by itself (the store being down must not crash a worker). */
  assertNoneCrashed(): void {
    if (this.#unexpected.length > 0) throw new Error(`worker crashed: ${this.#unexpected.join('\n')}`);
  }

  /** Asks every live worker to stop (SIGTERM: `stop()` drains), killing those that do not within `ms`. */
  async stopAll(ms = 15_000): Promise<void> {
    const stopping = this.#live.splice(0);
    for (const child of stopping) this.#killing.add(child);
    await Promise.all(
      stopping.map(async (child) => {
        child.process.kill('SIGTERM');
        const ended = await Promise.race([child.exited.then(() => true), sleep(ms).then(() => false)]);
        if (!ended) {
          child.process.kill('SIGKILL');
          await child.exited;
          throw new Error(`a worker did not stop within ${ms} ms: ${child.stderr()}`);
        }
      }),
    );
  }

  /** SIGKILLs every worker left (cleanup after a failed test). */
  async killAll(): Promise<void> {
    const left = this.#live.splice(0);
    for (const child of left) {
      this.#killing.add(child);
      child.process.kill('SIGKILL');
    }
    await Promise.all(left.map((c) => c.exited));
  }

  /** Every write any worker printed as acknowledged. */
  acknowledged(): Acknowledged {
    const puts = new Map<string, Map<number, string>>();
    const writes = new Map<string, Map<number, Set<string>>>();
    for (const child of this.#all) {
      for (const line of child.lines) {
        const put = /^put (".*") (\d+) (\S+)$/.exec(line);
        if (put) {
          const thread = JSON.parse(put[1]!) as string;
          const steps = puts.get(thread) ?? new Map<number, string>();
          puts.set(thread, steps.set(Number(put[2]), put[3]!));
          continue;
        }
        const w = /^writes (".*") (\d+) (\[.*\])$/.exec(line);
        if (w) {
          const thread = JSON.parse(w[1]!) as string;
          const steps = writes.get(thread) ?? new Map<number, Set<string>>();
          writes.set(thread, steps);
          const keys = steps.get(Number(w[2])) ?? new Set<string>();
          steps.set(Number(w[2]), keys);
          for (const key of JSON.parse(w[3]!) as string[]) keys.add(key);
        }
      }
    }
    return { puts, writes };
  }

  /** How many checkpoints the workers acknowledged so far. */
  putsAcknowledged(): number {
    let n = 0;
    for (const child of this.#all) for (const line of child.lines) if (line.startsWith('put ')) n++;
    return n;
  }
}

/** Polls `done` every 100 ms for up to `ms`; resolves `true` as soon as it holds. */
export async function pollUntil(done: () => Promise<boolean>, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (await done()) return true;
    if (Date.now() >= until) return false;
    await sleep(Math.min(100, Math.max(0, until - Date.now())));
  }
}
