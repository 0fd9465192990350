import { randomBytes } from 'node:crypto';
import { type Checkpointer, encryptedSerializer, type Serializer } from '@flow/core';
import type { BenchContext } from '../context.js';
import { growingStates } from '../data.js';
import { progress } from '../progress.js';
import type { Recorder } from '../report/recorder.js';
import { type Section, section } from '../report/section.js';
import { median, rotate, Samples } from '../stats.js';
import { flowSubject } from '../stores/flow-subject.js';
import type { BackendSuite, OpenedStore, StoreOpener } from '../stores/types.js';
import { expectMessages } from './check.js';
import { flowLoop } from './engine-graphs.js';
import { withSubjects } from './open-subjects.js';
import { warmUpPuts } from './warm-up.js';

/**
 * Gets per second at the median get. A SQLite get takes tens of µs, so on a shared machine one call that loses
 * the core for a time slice outweighs a hundred others in a mean (two runs of the same build measured 0.12 and
 * 1.32 that way); the median is what a call costs.
 */
function atMedian(samples: Samples): number {
  return 1000 / samples.p(50);
}

/** W3 here reads each thread this many times per W3 round: more calls for a steadier median, still quick. */
const GET_ROUNDS_FACTOR = 4;

/**
 * The serializer under test: two keys, as a store mid-rotation has, the current one encrypting. By default
 * with its decryption cache, which answers a read of what this process wrote or read before; `cacheBytes: 0`
 * is the cold read, every value through the cipher (a process that has not seen the record).
 */
function benchSerializer(cacheBytes?: number): Serializer {
  const keys = { new: randomBytes(32), old: randomBytes(32) };
  return encryptedSerializer({ keys, current: 'new', ...(cacheBytes === undefined ? {} : { cacheBytes }) });
}

const columns = (unit: string) => [
  { key: 'plain', header: `plain ${unit}` },
  { key: 'encrypted', header: `encrypted ${unit}` },
  { key: 'ratio', header: 'encrypted/plain', digits: 3 },
  { key: 'cold', header: `cache off ${unit}` },
  { key: 'coldRatio', header: 'cache off/plain', digits: 3 },
];

/**
 * The cost of `encryptedSerializer`, measured side by side: the same @flow checkpointer with the default
 * serializer and with the encrypted one, taking turns thread by thread (W1 puts) and read by read (W3 gets),
 * on SQLite and Postgres; and W5's engine loop on memory, plain and encrypted runs taking turns. A ratio of
 * 1 means encryption is free; the target is ≥ 0.8× throughput.
 */
export async function encryption(
  ctx: BenchContext,
  suites: readonly BackendSuite[],
  rec: Recorder,
): Promise<void> {
  const sz = ctx.options.sizes;
  const threads = sz['w1-threads'];
  const steps = sz['w1-steps'];
  const rounds = sz['w3-rounds'];
  const states = growingStates(steps, sz['w1-kb'] * 1024);
  const puts = section({
    id: 'enc-w1',
    title: 'Encryption: W1 sequential puts, plain vs encrypted',
    detail: `${threads} threads × ${steps} steps of W1's states, the three stores (plain, encrypted, encrypted with cacheBytes: 0) taking turns thread by thread; puts/s at the median put.`,
    columns: columns('puts/s'),
    ratioOf: 'ratio',
    better: 'higher',
  });
  const gets = section({
    id: 'enc-w3',
    title: 'Encryption: W3 get latest, plain vs encrypted',
    detail: `The latest checkpoint of each thread, ${rounds * GET_ROUNDS_FACTOR} rounds, state decrypted and decoded, read by read in turns; gets/s at the median get. each store reads every thread's latest once, untimed, first, so "encrypted" reads what its process has read before and its decryption cache answers (warm); "cache off" (cacheBytes: 0) decrypts every read (cold, as a process that has not read the record).`,
    columns: columns('gets/s'),
    ratioOf: 'ratio',
    better: 'higher',
  });
  const engine = section({
    id: 'enc-w5',
    title: 'Encryption: W5 engine on memory, per super-step',
    detail: `W5's two-node loop of ${sz['w5-steps']} super-steps, median of ${sz['w5-runs']} runs each after a warm-up.`,
    columns: [
      { key: 'plain', header: 'plain µs/step' },
      { key: 'encrypted', header: 'encrypted µs/step' },
      { key: 'ratio', header: 'encrypted/plain', digits: 3 },
    ],
    ratioOf: 'ratio',
    better: 'lower',
  });

  for (const suite of suites) {
    const withSerializer = suite.flowStoreWith;
    if (withSerializer === undefined) continue;
    if (suite.id === 'sqlite' || suite.id === 'postgres') {
      await rec.guard('encryption w1/w3', suite.id, async () => {
        const factories = [
          flowSubject('plain', suite.flowStore as StoreOpener<Checkpointer>),
          flowSubject('encrypted', withSerializer(benchSerializer()) as StoreOpener<Checkpointer>),
          flowSubject('cache off', withSerializer(benchSerializer(0)) as StoreOpener<Checkpointer>),
        ];
        // Never more warm-up reads than measured ones: a quick run of three stores stays quick on Postgres.
        const warmGets = Math.min(500, rounds * GET_ROUNDS_FACTOR * threads);
        await withSubjects(factories, async (opened) => {
          const order = [0, 1, 2];
          for (const { subject } of opened) {
            await warmUpPuts(subject, states, threads * steps);
            for (let k = 0; k < warmGets; k++) await subject.getLatest('warm-up');
          }
          const put = [new Samples(), new Samples(), new Samples()];
          for (let t = 0; t < threads; t++) {
            for (const i of rotate(order, t)) {
              const subject = opened[i]!.subject;
              for (let step = 0; step < steps; step++) {
                await put[i]!.time(() => subject.put(`enc-${t}`, step, states[step]!));
              }
            }
          }
          // A write does not fill the decryption cache: the warm side reads each record once before timing.
          for (let t = 0; t < threads; t++) {
            for (const { subject } of opened) await subject.getLatest(`enc-${t}`);
          }
          const get = [new Samples(), new Samples(), new Samples()];
          for (let r = 0; r < rounds * GET_ROUNDS_FACTOR; r++) {
            for (let t = 0; t < threads; t++) {
              for (const i of rotate(order, r * threads + t)) {
                const state = await get[i]!.time(() => opened[i]!.subject.getLatest(`enc-${t}`));
                expectMessages(state, steps, `${suite.id} ${opened[i]!.factory.label} get`);
              }
            }
          }
          const label = `${suite.id === 'sqlite' ? 'SqliteCheckpointer' : 'PostgresCheckpointer'} + encryptedSerializer`;
          const [putPlain, putEncrypted, putCold] = put.map(atMedian) as [number, number, number];
          const [getPlain, getEncrypted, getCold] = get.map(atMedian) as [number, number, number];
          puts.rows.push(ratioRow(suite.id, label, putPlain, putEncrypted, putCold));
          gets.rows.push(ratioRow(suite.id, label, getPlain, getEncrypted, getCold));
          progress(
            `encryption ${suite.id}: puts ${ratioText(putPlain, putEncrypted)}, cache off ${ratioText(putPlain, putCold)}; ` +
              `gets ${ratioText(getPlain, getEncrypted)}, cache off ${ratioText(getPlain, getCold)}`,
          );
        });
      });
    }
    if (suite.id === 'memory') {
      await rec.guard('encryption w5', suite.id, async () => {
        const open: OpenedStore<Checkpointer>[] = [];
        try {
          for (const opener of [suite.flowStore, withSerializer(benchSerializer())]) {
            open.push((await (opener as StoreOpener<Checkpointer>)()) as OpenedStore<Checkpointer>);
          }
          const loops = open.map((o) => flowLoop(sz['w5-steps'], o.store));
          for (const [i, run] of loops.entries()) await run(`enc-w5-warm-${i}`);
          const times: number[][] = [[], []];
          for (let r = 0; r < sz['w5-runs']; r++) {
            for (const i of rotate([0, 1], r)) {
              const start = performance.now();
              await loops[i]!(`enc-w5-${r}-${i}`);
              times[i]!.push(((performance.now() - start) * 1000) / sz['w5-steps']);
            }
          }
          const [plain, encrypted] = times.map(median) as [number, number];
          engine.rows.push({
            backend: 'memory',
            side: 'flow',
            label: 'StateGraph + MemoryCheckpointer + encryptedSerializer',
            values: { plain, encrypted, ratio: encrypted / plain },
          });
          progress(
            `encryption W5 memory: ${plain.toFixed(1)} µs plain, ${encrypted.toFixed(1)} µs encrypted`,
          );
        } finally {
          for (const o of open) await o.close();
        }
      });
    }
  }
  const out: Section[] = [puts, gets, engine].filter((s) => s.rows.length > 0);
  rec.add(...out);
}

function ratioRow(backend: string, label: string, plain: number, encrypted: number, cold: number) {
  return {
    backend,
    side: 'flow' as const,
    label,
    values: { plain, encrypted, ratio: encrypted / plain, cold, coldRatio: cold / plain },
  };
}

function ratioText(plain: number, encrypted: number): string {
  return `${Math.round(plain)} → ${Math.round(encrypted)}/s (${(encrypted / plain).toFixed(3)}×)`;
}
