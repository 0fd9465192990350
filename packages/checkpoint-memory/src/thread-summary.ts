import type { CheckpointRecord, ThreadInfo, ThreadStatus } from '@flow/core';

/** `true` when the run finished: an empty frontier and not interrupted (the same rule as `Checkpoint#done`). */
function isDone(record: CheckpointRecord): boolean {
  return record.next.length === 0 && !record.interrupted;
}

/** The `ThreadInfo` of a thread whose latest record is `latest`: exactly the five fields, no state. */
export function toThreadInfo(latest: CheckpointRecord): ThreadInfo {
  return {
    thread: latest.thread,
    latestStep: latest.step,
    interrupted: latest.interrupted,
    done: isDone(latest),
    ts: latest.ts,
  };
}

/** Whether a thread whose latest record is `latest` has `status` (any status when undefined). */
export function matchesStatus(latest: CheckpointRecord, status: ThreadStatus | undefined): boolean {
  switch (status) {
    case undefined:
      return true;
    case 'done':
      return isDone(latest);
    case 'interrupted':
      return latest.interrupted;
    case 'running':
      return !latest.interrupted && !isDone(latest);
  }
}
