import { randomBytes } from 'node:crypto';
import type { PendingWrite as FlowWrite } from '@flow/core';
import {
  type CheckpointPendingWrite,
  compareWritesSortKeys,
  type PendingWrite,
  type SerializerProtocol,
  WRITES_IDX_MAP,
  writesSortKey,
} from '@langchain/langgraph-checkpoint';
import { loadValue, type StoredValue, storePlain, storeValue } from './stored-value.js';

/** A LangGraph write as stored in a @flow per-step write: channel, task path and the serde's output. */
export type StoredWrite = { c: string; p: string } & StoredValue;

let counter = 0;
const processTag = randomBytes(4).toString('hex');

/**
 * A key that sorts after every earlier one of this process: the time, a counter, and a tag of the process
 * (so two processes never make the same key).
 */
function laterKey(): string {
  counter = (counter + 1) % 36 ** 4;
  return `${Date.now().toString(36).padStart(9, '0')}${counter.toString(36).padStart(4, '0')}${processTag}`;
}

/**
 * LangGraph's writes of one task as @flow writes: node = task id, key = the write's index. A regular write
 * (index ≥ 0) keeps the first value stored, as @flow's writes do. A special one (an error, an interrupt, a
 * resume value, a schedule: a negative index from `WRITES_IDX_MAP`) replaces the one before, as in LangGraph's
 * savers: each gets a fresh key `<index>~<later key>`, and reads keep the latest per (task, index).
 */
export function toFlowWrites(
  serde: SerializerProtocol,
  writes: readonly PendingWrite[],
  taskId: string,
  taskPath: string,
): FlowWrite[] | Promise<FlowWrite[]> {
  const flowWrite = (channel: string, i: number, value: StoredValue): FlowWrite => {
    const idx = WRITES_IDX_MAP[channel] ?? i;
    const stored: StoredWrite = { c: channel, p: taskPath, ...value };
    return { node: taskId, key: idx >= 0 ? String(idx) : `${idx}~${laterKey()}`, value: stored };
  };
  const out: FlowWrite[] = [];
  for (let i = 0; i < writes.length; i++) {
    const [channel, value] = writes[i] as PendingWrite;
    const plain = storePlain(serde, value);
    if (plain === undefined) {
      // A value only the serde can write: all of them through it, without a promise per write otherwise.
      return Promise.all(writes.map(async ([c, v], j) => flowWrite(c, j, await storeValue(serde, v))));
    }
    out.push(flowWrite(channel, i, plain));
  }
  return out;
}

/** One stored write, decoded enough to sort and filter. */
export interface SortedWrite {
  taskId: string;
  idx: number;
  stored: StoredWrite;
}

/**
 * The stored writes of one checkpoint in LangGraph's order (task path, task id, index), the latest only of
 * each special (task, index).
 */
export function sortWrites(writes: readonly FlowWrite[]): SortedWrite[] {
  const latest = new Map<string, { key: string; write: SortedWrite }>();
  const out: SortedWrite[] = [];
  for (const w of writes) {
    const tilde = w.key.indexOf('~');
    const idx = Number(tilde < 0 ? w.key : w.key.slice(0, tilde));
    const write = { taskId: w.node, idx, stored: w.value as StoredWrite };
    if (tilde < 0) {
      out.push(write);
      continue;
    }
    const slot = JSON.stringify([w.node, idx]);
    const seen = latest.get(slot);
    if (seen === undefined || seen.key < w.key) latest.set(slot, { key: w.key, write });
  }
  for (const { write } of latest.values()) out.push(write);
  const keyOf = (w: SortedWrite) => writesSortKey(w.stored.p, w.taskId, w.idx);
  return out.sort((a, b) => compareWritesSortKeys(keyOf(a), keyOf(b)));
}

/** LangGraph's `pendingWrites` from sorted writes. */
export function loadWrites(
  serde: SerializerProtocol,
  writes: readonly SortedWrite[],
): Promise<CheckpointPendingWrite[]> {
  return Promise.all(
    writes.map(
      async (w): Promise<CheckpointPendingWrite> => [w.taskId, w.stored.c, await loadValue(serde, w.stored)],
    ),
  );
}
