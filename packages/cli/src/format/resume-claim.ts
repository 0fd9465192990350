/** What `history` keeps of a step once its state is let go. */
export interface StepSummary {
  step: number;
  next: readonly string[];
  interrupted: boolean;
  failed: boolean;
  /** `contentDigest` of the state. */
  state: string;
}

function sameFrontier(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((node, i) => node === b[i]);
}

/**
 * Whether `step` is a resume claim: the step a resume writes before it runs anything, which carries the
 * frontier of the step before it. After an interrupt or a failure every next step is one (the state may
 * be patched); after a running step — a recovery of a run whose process died — it also carries the same
 * state, which a loop that changed nothing would too, so such a loop step reads as a claim.
 */
export function isResumeClaim(step: StepSummary, before: StepSummary | undefined): boolean {
  if (before === undefined || before.step !== step.step - 1) return false;
  // A failed step (the engine records a failure on a step of its own, with the state and frontier of the
  // step before it) is never a claim.
  if (step.interrupted || step.failed || step.next.length === 0 || !sameFrontier(step.next, before.next))
    return false;
  return before.interrupted || before.failed || step.state === before.state;
}
