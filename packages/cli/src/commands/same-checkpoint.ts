import type { Checkpoint } from '@flow/core';
import { contentDigest } from './content-digest.js';

/** Whether two values are the same content, by the rule of `contentDigest`. */
export function deepEqual(a: unknown, b: unknown): boolean {
  return Object.is(a, b) || contentDigest(a) === contentDigest(b);
}

/**
 * What makes a checkpoint's content, with its state and interrupt payload reduced to digests: small enough
 * to keep after the checkpoint itself is let go.
 */
export interface CheckpointContent {
  thread: string;
  step: number;
  ts: string;
  interrupted: boolean;
  interruptNode: string | null;
  next: readonly string[];
  state: string;
  interruptPayload: string;
  /** Digest of the run's error and the checkpoint's meta. */
  extra: string;
}

/** The content of a checkpoint (see `CheckpointContent`). The revision is not part of it. */
export function checkpointContent(cp: Checkpoint): CheckpointContent {
  return {
    thread: cp.thread,
    step: cp.step,
    ts: cp.ts,
    interrupted: cp.interrupted,
    interruptNode: cp.interruptNode,
    next: cp.next,
    state: contentDigest(cp.state),
    interruptPayload: contentDigest(cp.interruptPayload),
    extra: contentDigest([cp.error, cp.meta]),
  };
}

/** Whether two contents are the same: every field equal, the frontier in the same order. */
export function sameContent(a: CheckpointContent, b: CheckpointContent): boolean {
  return (
    a.thread === b.thread &&
    a.step === b.step &&
    a.ts === b.ts &&
    a.interrupted === b.interrupted &&
    a.interruptNode === b.interruptNode &&
    a.next.length === b.next.length &&
    a.next.every((node, i) => node === b.next[i]) &&
    a.state === b.state &&
    a.interruptPayload === b.interruptPayload &&
    a.extra === b.extra
  );
}

/**
 * Whether two checkpoints hold the same content: state and interrupt payload (by `contentDigest`'s rule),
 * frontier, interrupt fields, timestamp, error and meta. The revision is ignored: it counts writes to one store, and a
 * copy starts it again at 1.
 */
export function sameCheckpoint(a: Checkpoint, b: Checkpoint): boolean {
  return sameContent(checkpointContent(a), checkpointContent(b));
}
