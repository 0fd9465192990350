import type { BenchContext } from '../context.js';
import { jsonBytes, sizedState } from '../data.js';
import { progress } from '../progress.js';
import type { Recorder } from '../report/recorder.js';
import { fillRatios, section } from '../report/section.js';
import { rotate, Samples } from '../stats.js';
import type { BackendSuite } from '../stores/types.js';
import { withSubjects } from './open-subjects.js';
import { summary } from './puts-and-reads.js';

/**
 * W2: large states. `w2-threads` threads × `w2-steps` steps of a `w2-kb` KB state that differs at every
 * step, one put at a time, the stores taking turns thread by thread. MB/s counts the state's JSON bytes.
 */
export async function largeState(
  ctx: BenchContext,
  suites: readonly BackendSuite[],
  rec: Recorder,
): Promise<void> {
  const sz = ctx.options.sizes;
  const threads = sz['w2-threads'];
  const steps = sz['w2-steps'];
  const states = Array.from({ length: steps }, (_, step) => sizedState(sz['w2-kb'] * 1024, step));
  const bytes = states.reduce((a, s) => a + jsonBytes(s), 0) / states.length;
  const w2 = section({
    id: 'w2',
    title: 'W2 large state',
    detail: `${threads} threads × ${steps} steps of a ${(bytes / 1024).toFixed(0)} KB state, one put at a time.`,
    columns: [
      { key: 'rate', header: 'puts/s' },
      { key: 'mbps', header: 'MB/s' },
      { key: 'p50', header: 'p50 ms' },
      { key: 'p99', header: 'p99 ms' },
    ],
    ratioOf: 'rate',
    better: 'higher',
  });
  for (const suite of suites) {
    await rec.guard('w2', suite.id, () =>
      withSubjects(suite.subjects, async (opened) => {
        const puts = opened.map(() => new Samples());
        const order = opened.map((_, i) => i);
        for (const { subject } of opened) await subject.put('warm-up', 0, states[0]!);
        for (let t = 0; t < threads; t++) {
          for (const i of rotate(order, t)) {
            const subject = opened[i]!.subject;
            for (let step = 0; step < steps; step++) {
              await puts[i]!.time(() => subject.put(`w2-${t}`, step, states[step]!));
            }
          }
        }
        for (const [i, o] of opened.entries()) {
          const s = puts[i]!;
          w2.rows.push({
            backend: suite.id,
            side: o.factory.side,
            label: o.factory.label,
            values: { rate: s.perSecond, mbps: (s.perSecond * bytes) / 2 ** 20, p50: s.p(50), p99: s.p(99) },
          });
        }
        progress(`W2 ${suite.id}: ${summary(opened, puts, 'puts/s')}`);
      }),
    );
  }
  rec.add(fillRatios(w2));
}
