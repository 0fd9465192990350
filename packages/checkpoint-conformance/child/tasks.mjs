// The tasks the kit's "process races" suite runs in child processes (see run-child.mjs). Each one takes
// the child's checkpointer, the parameters the parent sent, and `{ index }` (which child this is), and
// resolves with plain JSON the parent checks.
import { Checkpoint, isFlowError } from '@flow/core';

function checkpoint(thread, step, writer, fields = {}) {
  return new Checkpoint({ thread, step, state: { writer, step }, next: ['work'], ...fields });
}

/** How one put ended: won (with the stored revision), lost to a conflict, or failed otherwise. */
function outcome(promise) {
  return promise.then(
    (stored) => ({ won: true, revision: stored.revision }),
    (error) =>
      isFlowError(error, 'CHECKPOINT_CONFLICT')
        ? { won: false, expected: error.expected, actual: error.actual }
        : { won: false, error: { code: error?.code, name: error?.name, message: String(error?.message) } },
  );
}

/** Fires every `{ step, ifRevision }` of `puts` at once, each writing `{ writer: index }`. */
export function conditionalPuts(cp, { thread, puts }, { index }) {
  return Promise.all(
    puts.map(({ step, ifRevision }) => outcome(cp.put(checkpoint(thread, step, index), { ifRevision }))),
  );
}

/** `count` unconditional puts to one (thread, step), one after the other; resolves with their revisions. */
export async function unconditionalPuts(cp, { thread, step, count }, { index }) {
  const revisions = [];
  for (let i = 0; i < count; i++) revisions.push((await cp.put(checkpoint(thread, step, index))).revision);
  return revisions;
}

/**
 * What a resumer does, at the protocol level: read the latest checkpoint and claim the next step with
 * `ifRevision: 0`; on a conflict read again. Goes on until the thread reaches step `until`. Resolves with
 * the steps this child won and how many claims it lost.
 */
export async function claimSteps(cp, { thread, until }, { index }) {
  const won = [];
  let lost = 0;
  for (;;) {
    const latest = await cp.get(thread);
    if (latest === undefined) throw new Error(`thread ${JSON.stringify(thread)} is missing`);
    if (latest.step >= until) return { won, lost };
    const step = latest.step + 1;
    const result = await outcome(
      cp.put(checkpoint(thread, step, index, { next: step === until ? [] : ['work'] }), { ifRevision: 0 }),
    );
    if (result.won) won.push(step);
    else if (result.error) throw new Error(`claim of step ${step} failed: ${result.error.message}`);
    else lost++;
  }
}

/**
 * The answer race, at the protocol level: if the latest checkpoint is interrupted, claim the next step with
 * the answer (`ifRevision: 0`). Resolves with the outcome, or `{ won: false, notInterrupted: true }`.
 */
export async function answerInterrupt(cp, { thread }, { index }) {
  const latest = await cp.get(thread);
  if (latest === undefined || !latest.interrupted) return { won: false, notInterrupted: true };
  const claim = new Checkpoint({
    thread,
    step: latest.step + 1,
    state: { ...latest.state, answer: index },
    next: latest.next,
  });
  return outcome(cp.put(claim, { ifRevision: 0 }));
}

/**
 * The write race: every child stores its own value for the same keys of one (thread, step), then reads the
 * step back. Resolves with what this child read.
 */
export async function raceWrites(cp, { thread, step, keys }, { index }) {
  await cp.putWrites(
    thread,
    step,
    keys.map((key) => ({ node: 'raced', key, value: { writer: index } })),
  );
  return cp.getWrites(thread, step);
}

/** The lease race: every child asks for one lease under its own owner name. Resolves with the lease or null. */
export async function raceLease(cp, { thread, ttlMs }, { index }) {
  return (await cp.acquireLease(thread, { owner: `worker-${index}`, ttlMs })) ?? null;
}
