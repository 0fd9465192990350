import type { Checkpointer } from '@flow/core';
import { FlowSaver } from '@flow/langgraph';
import type { BenchContext } from '../context.js';
import { jsonBytes, makeMessage } from '../data.js';
import { progress } from '../progress.js';
import { formatBytes } from '../report/format.js';
import type { Recorder } from '../report/recorder.js';
import { fillRatios, section } from '../report/section.js';
import { openFileFlow } from '../stores/file.js';
import type { BackendSuite, StoreOpener } from '../stores/types.js';
import { flowChat, langgraphChat } from './engine-graphs.js';
import { withSubjects } from './open-subjects.js';

/**
 * W6: bytes stored by one run of `w6-steps` super-steps whose state gains one `w6-msg-bytes`-byte message
 * per step. @flow and LangGraph.js run the same graph; the raw floor puts the same states (the input and
 * one per super-step). LangGraph.js runs it on its own saver and on `FlowSaver` over the @flow store, whose
 * lists of JSON items share storage between steps as @flow's own states do (twice the steps there too). Where bytes cannot be measured (in-process stores) the backend is left out. @flow
 * runs a second time with twice the steps, so the table shows how the bytes grow with the thread.
 * Each store is measured twice: whole (its schema's empty tables and indexes included) and the run's
 * bytes, what the run added to the store as it was set up and empty before it.
 */
export async function growth(
  ctx: BenchContext,
  suites: readonly BackendSuite[],
  rec: Recorder,
): Promise<void> {
  const steps = ctx.options.sizes['w6-steps'];
  const msgBytes = ctx.options.sizes['w6-msg-bytes'];
  const messages = Array.from({ length: steps }, (_, i) => makeMessage(i, msgBytes));
  const states = Array.from({ length: steps + 1 }, (_, s) => ({ messages: messages.slice(0, s) }));
  const payload = states.reduce((a, s) => a + jsonBytes(s), 0);
  const finalBytes = jsonBytes(states[steps]);
  const w6 = section({
    id: 'w6',
    title: 'W6 storage growth',
    detail:
      `One run of ${steps} super-steps, each appending a ${msgBytes}-byte message; ${steps + 1} checkpoints whose ` +
      `state JSON adds up to ${formatBytes(payload)}. Bytes: SQLite pages in use (dbstat), Postgres ` +
      'pg_total_relation_size of the schema, Redis MEMORY USAGE of the keys, file: the sizes of its files. ' +
      `"vs final state": over the last state's JSON (${formatBytes(finalBytes)}); "${steps * 2}/${steps}": @flow's ` +
      `(and FlowSaver's) bytes for a ${steps * 2}-step run over these (linear growth: about 2, a full copy per step: about 4). ` +
      '"run": the same, less the bytes of the store set up and empty before the run (its schema). ' +
      '"second thread": what the same run on a second thread of the same store adds after it (pages and ' +
      "forks a store makes on its first rows, such as Postgres's free space maps, are there already).",
    columns: [
      { key: 'bytes', header: 'bytes' },
      { key: 'perPayload', header: 'vs state JSON', digits: 2 },
      { key: 'perFinal', header: 'vs final state', digits: 1 },
      { key: 'doubled', header: `${steps * 2}/${steps} steps`, digits: 2 },
      { key: 'runBytes', header: 'run bytes' },
      { key: 'runPerFinal', header: 'run vs final state', digits: 1 },
      { key: 'runDoubled', header: `run ${steps * 2}/${steps}`, digits: 2 },
      { key: 'secondBytes', header: 'second thread' },
      { key: 'secondPerFinal', header: 'second vs final state', digits: 1 },
    ],
    ratioOf: 'bytes',
    better: 'lower',
  });
  const flowBytes = async (open: StoreOpener<unknown>, n: number, second = false) => {
    const flow = await open();
    try {
      await (flow.store as Checkpointer).setup();
      const empty = await flow.storedBytes!();
      await flowChat(n, msgBytes, flow.store as never)('w6');
      const bytes = await flow.storedBytes!();
      // A thread id of the same length, so the ids it stores cost what the first thread's did.
      if (second) await flowChat(n, msgBytes, flow.store as never)('W6');
      const secondBytes = second ? (await flow.storedBytes!()) - bytes : undefined;
      return { label: (flow.store as object).constructor.name, bytes, empty, secondBytes };
    } finally {
      await flow.close();
    }
  };
  /** The same graph on LangGraph.js with `FlowSaver` over a fresh @flow store of the backend. */
  const flowSaverBytes = async (open: StoreOpener<unknown>, n: number) => {
    const flow = await open();
    try {
      await (flow.store as Checkpointer).setup();
      const empty = await flow.storedBytes!();
      await langgraphChat(n, msgBytes, new FlowSaver(flow.store as Checkpointer))('w6');
      const label = `FlowSaver(${(flow.store as object).constructor.name})`;
      return { label, bytes: await flow.storedBytes!(), empty };
    } finally {
      await flow.close();
    }
  };
  /** A run's bytes with the ratios of a run of twice the steps to it: the whole store's, and the run's own. */
  const withTwice = <M extends { bytes: number; empty: number }>(once: M, twice: M) => ({
    ...once,
    doubled: twice.bytes / once.bytes,
    runDoubled: (twice.bytes - twice.empty) / (once.bytes - once.empty),
  });
  const plans: { backend: string; suite?: BackendSuite; flowStore: StoreOpener<unknown> }[] = suites
    .filter((s) => s.id !== 'memory')
    .map((suite) => ({ backend: suite.id, suite, flowStore: suite.flowStore }));
  if (ctx.options.backends.includes('file'))
    plans.push({ backend: 'file', flowStore: () => openFileFlow(ctx) });
  for (const { backend, suite, flowStore } of plans) {
    await rec.guard('w6', backend, async () => {
      const measured: {
        side: 'raw' | 'flow' | 'langgraph';
        label: string;
        bytes: number;
        /** The store's bytes before the run, set up and empty. */
        empty: number;
        doubled?: number;
        runDoubled?: number;
        secondBytes?: number | undefined;
      }[] = [];
      const raw = suite?.subjects.find((f) => f.side === 'raw');
      if (raw) {
        await withSubjects([raw], async ([o]) => {
          const empty = await o!.subject.storedBytes!();
          for (const [step, state] of states.entries()) await o!.subject.put('w6', step, state);
          measured.push({ side: 'raw', label: raw.label, bytes: await o!.subject.storedBytes!(), empty });
        });
      }
      measured.push({
        side: 'flow',
        ...withTwice(await flowBytes(flowStore, steps, true), await flowBytes(flowStore, steps * 2)),
      });
      if (suite?.langgraphStore) {
        const lg = await suite.langgraphStore();
        try {
          // The saver makes its tables on first use: what it has before the run is counted as empty.
          const empty = await lg.storedBytes!();
          await langgraphChat(steps, msgBytes, lg.store as never)('w6');
          measured.push({
            side: 'langgraph',
            label: (lg.store as object).constructor.name,
            bytes: await lg.storedBytes!(),
            empty,
          });
        } finally {
          await lg.close();
        }
      }
      measured.push({
        side: 'langgraph',
        ...withTwice(await flowSaverBytes(flowStore, steps), await flowSaverBytes(flowStore, steps * 2)),
      });
      for (const m of measured) {
        w6.rows.push({
          backend,
          side: m.side,
          label: m.label,
          values: {
            bytes: m.bytes,
            perPayload: m.bytes / payload,
            perFinal: m.bytes / finalBytes,
            doubled: m.doubled,
            runBytes: m.bytes - m.empty,
            runPerFinal: (m.bytes - m.empty) / finalBytes,
            runDoubled: m.runDoubled,
            secondBytes: m.secondBytes,
            secondPerFinal: m.secondBytes === undefined ? undefined : m.secondBytes / finalBytes,
          },
        });
      }
      progress(
        `W6 ${backend}: ${measured.map((m) => `${m.side} ${formatBytes(m.bytes)} (run ${formatBytes(m.bytes - m.empty)})`).join(' · ')}`,
      );
    });
  }
  rec.add(fillRatios(w6));
}
