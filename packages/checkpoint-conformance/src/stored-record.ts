import type { CheckpointRecord } from '@flow/core';

/**
 * A record as a backend's storage operations take and give it (state already serialized, `ts` stamped): for a
 * backend's own tests of the storage contract (`writeRecord`, chunks and refs), below what the kit's suites
 * reach through the public API. `{"step":N}` as state and a frontier of `['n']` unless `fields` says otherwise.
 */
export function storedRecord(
  thread: string,
  step: number,
  fields: Partial<Omit<CheckpointRecord, 'thread' | 'step'>> = {},
): CheckpointRecord {
  return {
    thread,
    step,
    state: `{"step":${step}}`,
    next: ['n'],
    interrupted: false,
    interruptNode: null,
    interruptPayload: 'null',
    ts: new Date().toISOString(),
    revision: 0,
    error: null,
    meta: '{}',
    ...fields,
  };
}
