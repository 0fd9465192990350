import { join } from 'node:path';
import type { CheckpointRecord, ChunkRecord } from '@flow/core';
import { readChunkFiles } from './chunk-file.js';
import { stepFileName } from './layout.js';
import { mapLimit } from './map-limit.js';
import { readStepFile } from './step-file.js';

/**
 * Reads steps of the thread directory `dir` and, for linear states, the chunks they reference: each chunk
 * once, however many of the steps share it (every linear record gets them all). A step that does not exist
 * is left out. Lock-free: when a chunk is gone, another process pruned, rewrote or deleted the step after
 * its file was read, so that step is read once more on its own. A chunk still missing then is left out, and
 * core reports the record as corrupt, naming the chunk.
 */
export async function readSteps(
  dir: string,
  thread: string,
  steps: readonly number[],
  concurrency: number,
): Promise<CheckpointRecord[]> {
  const read = async (s: number) => readStepFile(join(dir, stepFileName(s)), thread, s);
  const records = (await mapLimit(steps, concurrency, read)).filter((r) => r !== undefined);
  const refs = records.flatMap((r) => r.refs ?? []);
  if (refs.length === 0) return records;
  const chunks = readChunkFiles(dir, thread, refs);
  const found = new Set(chunks.map((c) => c.id));
  const out: CheckpointRecord[] = [];
  for (const record of records) {
    if (record.refs === undefined) {
      out.push(record);
    } else if (record.refs.every((id) => found.has(id))) {
      out.push(withChunks(record, chunks));
    } else {
      const again = await read(record.step);
      if (again?.refs === undefined) {
        if (again !== undefined) out.push(again);
      } else {
        out.push(withChunks(again, readChunkFiles(dir, thread, again.refs)));
      }
    }
  }
  return out;
}

/** One step (see `readSteps`); `undefined` when it does not exist. */
export async function readStep(
  dir: string,
  thread: string,
  step: number,
  concurrency: number,
): Promise<CheckpointRecord | undefined> {
  return (await readSteps(dir, thread, [step], concurrency))[0];
}

function withChunks(record: CheckpointRecord, chunks: readonly ChunkRecord[]): CheckpointRecord {
  record.chunks = chunks;
  return record;
}
