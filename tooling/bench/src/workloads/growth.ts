import type { BenchContext } from '../context.js';
import { jsonBytes, makeMessage } from '../data.js';
import { progress } from '../progress.js';
import { formatBytes } from '../report/format.js';
import type { Recorder } from '../report/recorder.js';
import { fillRatios, section } from '../report/section.js';
import type { BackendSuite } from '../stores/types.js';
import { flowChat, langgraphChat } from './engine-graphs.js';
import { withSubjects } from './open-subjects.js';

/**
 * W6: bytes stored by one run of `w6-steps` super-steps whose state gains one `w6-msg-bytes`-byte message
 * per step. @flow and LangGraph.js run the same graph; the raw floor puts the same states (the input and
 * one per super-step). Where bytes cannot be measured (in-process stores) the backend is left out.
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
  const w6 = section({
    id: 'w6',
    title: 'W6 storage growth',
    detail:
      `One run of ${steps} super-steps, each appending a ${msgBytes}-byte message; ${steps + 1} checkpoints whose ` +
      `state JSON adds up to ${formatBytes(payload)}. Bytes: SQLite pages in use (dbstat), Postgres ` +
      'pg_total_relation_size of the schema, Redis MEMORY USAGE of the keys.',
    columns: [
      { key: 'bytes', header: 'bytes' },
      { key: 'perPayload', header: 'vs state JSON', digits: 2 },
    ],
    ratioOf: 'bytes',
    better: 'lower',
  });
  for (const suite of suites) {
    if (suite.id === 'memory') continue;
    await rec.guard('w6', suite.id, async () => {
      const measured: { side: 'raw' | 'flow' | 'langgraph'; label: string; bytes: number }[] = [];
      const raw = suite.subjects.find((f) => f.side === 'raw')!;
      await withSubjects([raw], async ([o]) => {
        for (const [step, state] of states.entries()) await o!.subject.put('w6', step, state);
        measured.push({ side: 'raw', label: raw.label, bytes: await o!.subject.storedBytes!() });
      });
      const flow = await suite.flowStore();
      try {
        await flowChat(steps, msgBytes, flow.store as never)('w6');
        measured.push({
          side: 'flow',
          label: (flow.store as object).constructor.name,
          bytes: await flow.storedBytes!(),
        });
      } finally {
        await flow.close();
      }
      if (suite.langgraphStore) {
        const lg = await suite.langgraphStore();
        try {
          await langgraphChat(steps, msgBytes, lg.store as never)('w6');
          measured.push({
            side: 'langgraph',
            label: (lg.store as object).constructor.name,
            bytes: await lg.storedBytes!(),
          });
        } finally {
          await lg.close();
        }
      }
      for (const m of measured) {
        w6.rows.push({
          backend: suite.id,
          side: m.side,
          label: m.label,
          values: { bytes: m.bytes, perPayload: m.bytes / payload },
        });
      }
      progress(`W6 ${suite.id}: ${measured.map((m) => `${m.side} ${formatBytes(m.bytes)}`).join(' · ')}`);
    });
  }
  rec.add(fillRatios(w6));
}
