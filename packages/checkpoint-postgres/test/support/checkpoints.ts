import { Checkpoint, type CheckpointInit } from '@flow/core';

/** A checkpoint with sensible defaults for tests. */
export function checkpoint(thread: string, step: number, fields: Partial<CheckpointInit> = {}): Checkpoint {
  return new Checkpoint({ thread, step, state: { step }, next: ['work'], ...fields });
}
