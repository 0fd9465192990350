import type { Checkpointer } from '@flow/core';
import type { BenchContext } from '../context.js';
import { type ChatState, jsonBytes, makeMessage } from '../data.js';
import { progress } from '../progress.js';
import { formatBytes } from '../report/format.js';
import type { Recorder } from '../report/recorder.js';
import { fillRatios, type Row, section } from '../report/section.js';
import { median, rotate } from '../stats.js';
import { openFileFlow } from '../stores/file.js';
import { flowSubject } from '../stores/flow-subject.js';
import {
  type BackendSuite,
  SIDE_NAMES,
  type StoreOpener,
  type StoreSubject,
  type SubjectFactory,
} from '../stores/types.js';
import { expectMessages } from './check.js';
import { withSubjects } from './open-subjects.js';

/** Timed gets of the latest step and of step 1, each, per @flow store. */
const GET_REPS = 21;

/** `steps` states of an agent: a `baseKb` conversation, then one `toolKb` tool output more per step. */
function toolStates(steps: number, baseKb: number, toolKb: number): ChatState[] {
  const base = Array.from({ length: Math.max(1, Math.round(baseKb / 2)) }, (_, i) => makeMessage(i, 2048));
  const outputs = Array.from({ length: steps }, (_, i) => makeMessage(100_000 + i, toolKb * 1024));
  return Array.from({ length: steps }, (_, s) => ({ messages: [...base, ...outputs.slice(0, s)] }));
}

/**
 * W9 tool outputs: one thread of `w9-steps` steps whose `w9-base-kb` state gains a `w9-tool-kb` tool output
 * per step, put one after another (the sides taking turns step by step): puts/s, bytes stored against the
 * final state's JSON, and, on @flow, the bytes of twice the steps over these (linear growth: about 2;
 * a full copy per step: about 4 once the outputs dominate) and a get of step 1 over a get of the latest.
 * The file backend has no raw floor here; it is measured for @flow alone.
 */
export async function toolOutputs(
  ctx: BenchContext,
  suites: readonly BackendSuite[],
  rec: Recorder,
): Promise<void> {
  const sz = ctx.options.sizes;
  const steps = sz['w9-steps'];
  const states = toolStates(steps * 2, sz['w9-base-kb'], sz['w9-tool-kb']);
  const finalBytes = jsonBytes(states[steps - 1]);
  const w9 = section({
    id: 'w9',
    title: 'W9 tool outputs: storage and puts',
    detail:
      `One thread of ${steps} steps, a ${sz['w9-base-kb']} KB state gaining a ${sz['w9-tool-kb']} KB tool output per step ` +
      `(final state ${formatBytes(finalBytes)} of JSON), put one after another, the sides taking turns step by step. ` +
      `"${steps * 2}/${steps}": bytes of a ${steps * 2}-step thread over these; "get 1/latest": a get of step 1 over ` +
      `a get of the latest step (medians of ${GET_REPS}, in turns). "today's encoding": the same @flow store with ` +
      `\`stateStorage: 'whole'\`, every state whole as before linear storage; "puts/s vs today's" and "get latest vs ` +
      `today's" compare the @flow row with it (gets: medians of ${GET_REPS}, in turns).`,
    columns: [
      { key: 'rate', header: 'puts/s' },
      { key: 'bytes', header: 'bytes' },
      { key: 'perFinal', header: 'vs final state', digits: 1 },
      { key: 'doubled', header: `${steps * 2}/${steps} steps`, digits: 2 },
      { key: 'step1', header: 'get 1/latest', digits: 2 },
      { key: 'rateVsWhole', header: "puts/s vs today's", digits: 2 },
      { key: 'getVsWhole', header: "get latest vs today's", digits: 2 },
    ],
    ratioOf: 'bytes',
    better: 'lower',
  });
  const whole = (label: string, open: StoreOpener<Checkpointer> | undefined) =>
    open && flowSubject(`${label}, today's encoding (stateStorage: 'whole')`, open);
  const plans: { backend: string; factories: SubjectFactory[]; whole: SubjectFactory | undefined }[] = suites
    .filter((s) => s.id !== 'memory')
    .map((s) => {
      const factories = s.subjects.filter((f) => f.side !== 'langgraph');
      const flow = factories.find((f) => f.side === 'flow');
      const today = flow && whole(flow.label, s.flowStoreWhole as StoreOpener<Checkpointer> | undefined);
      return { backend: s.id, factories, whole: today };
    });
  if (ctx.options.backends.includes('file')) {
    plans.push({
      backend: 'file',
      factories: [flowSubject('FileCheckpointer', () => openFileFlow(ctx))],
      whole: whole('FileCheckpointer', () => openFileFlow(ctx, { stateStorage: 'whole' })),
    });
  }
  for (const plan of plans) {
    await rec.guard('w9', plan.backend, async () => {
      const doubled = new Map<SubjectFactory, number>();
      for (const f of plan.factories.filter((f) => f.side === 'flow')) {
        await withSubjects([f], async ([o]) => {
          for (const [step, state] of states.entries()) await o!.subject.put('w9', step, state);
          doubled.set(f, await o!.subject.storedBytes!());
        });
      }
      const sides = plan.whole === undefined ? plan.factories : [...plan.factories, plan.whole];
      await withSubjects(sides, async (opened) => {
        const ms = opened.map(() => 0);
        const order = opened.map((_, i) => i);
        for (let step = 0; step < steps; step++) {
          for (const i of rotate(order, step)) {
            const start = performance.now();
            await opened[i]!.subject.put('w9', step, states[step]!);
            ms[i]! += performance.now() - start;
          }
        }
        const rows = new Map<SubjectFactory, Row>();
        for (const [i, o] of opened.entries()) {
          expectMessages(
            await o.subject.getLatest('w9'),
            states[steps - 1]!.messages.length,
            o.factory.label,
          );
          const bytes = await o.subject.storedBytes!();
          let step1: number | undefined;
          if (o.subject.getStep) {
            const latest: number[] = [];
            const first: number[] = [];
            for (let r = 0; r < GET_REPS + 1; r++) {
              for (const read of rotate([0, 1], r)) {
                const start = performance.now();
                await (read === 0 ? o.subject.getLatest('w9') : o.subject.getStep('w9', 1));
                if (r > 0) (read === 0 ? latest : first).push(performance.now() - start);
              }
            }
            step1 = median(first) / median(latest);
          }
          const twice = doubled.get(o.factory);
          const row: Row = {
            backend: plan.backend,
            side: o.factory.side,
            label: o.factory.label,
            values: {
              rate: (steps * 1000) / ms[i]!,
              bytes,
              perFinal: bytes / finalBytes,
              doubled: twice === undefined ? undefined : twice / bytes,
              step1: o.factory === plan.whole ? undefined : step1,
            },
          };
          rows.set(o.factory, row);
          w9.rows.push(row);
        }
        const linear = opened.find((o) => o.factory.side === 'flow' && o.factory !== plan.whole);
        const today = opened.find((o) => o.factory === plan.whole);
        if (linear !== undefined && today !== undefined) {
          const row = rows.get(linear.factory)!;
          row.values.rateVsWhole = row.values.rate! / rows.get(today.factory)!.values.rate!;
          row.values.getVsWhole = await latestVsWhole(linear.subject, today.subject);
        }
        progress(
          `W9 ${plan.backend}: ${opened.map((o, i) => `${SIDE_NAMES[o.factory.side]} ${Math.round((steps * 1000) / ms[i]!)} puts/s`).join(' · ')}`,
        );
      });
    });
  }
  rec.add(fillRatios(w9));
}

/** A get of the latest step on `linear` over the same get on `whole`: medians of GET_REPS, in turns. */
async function latestVsWhole(linear: StoreSubject, whole: StoreSubject): Promise<number> {
  const times: [number[], number[]] = [[], []];
  const subjects = [linear, whole];
  for (let r = 0; r < GET_REPS + 1; r++) {
    for (const i of rotate([0, 1], r)) {
      const start = performance.now();
      await subjects[i]!.getLatest('w9');
      if (r > 0) times[i]!.push(performance.now() - start);
    }
  }
  return median(times[0]) / median(times[1]);
}
