import type { Checkpointer, Checkpoint as FlowCheckpoint } from '@flow/core';
import type {
  CheckpointPendingWrite,
  DeltaChannelHistory,
  SerializerProtocol,
} from '@langchain/langgraph-checkpoint';
import { sortWrites } from './pending-writes.js';
import { factsOf, stateOf } from './record.js';
import { loadValue } from './stored-value.js';

/**
 * `getDeltaChannelHistory` over @flow records: walks the target's ancestors by the parent step each record
 * keeps (no id lookups), collecting each channel's writes until the nearest ancestor that stores a value for
 * it (the seed). Writes of the seed ancestor are collected too; the target's own writes are not. Within a
 * checkpoint, writes come in LangGraph's order (task path, task id, index).
 */
export async function ancestorHistory(
  checkpointer: Checkpointer,
  serde: SerializerProtocol,
  where: { thread: string },
  target: FlowCheckpoint | undefined,
  channels: readonly string[],
): Promise<Record<string, DeltaChannelHistory>> {
  const collected = new Map<string, CheckpointPendingWrite[]>(channels.map((ch) => [ch, []]));
  const seeds = new Map<string, unknown>();
  const remaining = new Set(channels);
  let facts = target && factsOf(target);
  while (
    facts !== undefined &&
    facts.parent_step !== null &&
    facts.parent_id !== null &&
    remaining.size > 0
  ) {
    const step = facts.parent_step;
    const [cp, writes] = await Promise.all([
      checkpointer.get(where.thread, step),
      checkpointer.getWrites(where.thread, step),
    ]);
    const parentFacts = cp && factsOf(cp);
    if (cp === undefined || parentFacts?.checkpoint_id !== facts.parent_id) break;
    const values = stateOf(cp).values;
    const sorted = sortWrites(writes);
    for (let i = sorted.length - 1; i >= 0; i--) {
      const w = sorted[i]!;
      if (!remaining.has(w.stored.c)) continue;
      collected.get(w.stored.c)!.push([w.taskId, w.stored.c, await loadValue(serde, w.stored)]);
    }
    for (const ch of [...remaining]) {
      const value = values[ch];
      if (value === undefined) continue;
      seeds.set(ch, await loadValue(serde, value));
      remaining.delete(ch);
    }
    facts = parentFacts;
  }
  const result: Record<string, DeltaChannelHistory> = {};
  for (const ch of channels) {
    const entry: DeltaChannelHistory = { writes: collected.get(ch)!.slice().reverse() };
    if (seeds.has(ch)) entry.seed = seeds.get(ch);
    result[ch] = entry;
  }
  return result;
}
