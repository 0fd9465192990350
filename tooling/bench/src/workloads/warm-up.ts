import type { ChatState } from '../data.js';
import type { StoreSubject } from '../stores/types.js';

/**
 * Untimed puts per side before puts are timed: threads of the workload's own steps until about this many.
 * W1 times 1,000 puts a side; with a single 20-step warm-up thread the side with more JavaScript per put
 * (@flow's, against a bare prepared INSERT) was partly timed before V8 had optimized it: SQLite `normal`
 * puts measured 0.40–0.59× after 20 warm-up puts and 0.69–0.74× after 2,000, in alternating runs. W3's
 * reads were warmed up for the same reason.
 */
export const WARM_UP_PUTS = 500;

/**
 * Puts `states` as threads `warm-up`, `warm-up-1`, … until `WARM_UP_PUTS` puts (at most `maxPuts`), on one
 * side. `warm-up` is always written whole: the reads' warm-up uses it.
 */
export async function warmUpPuts(
  subject: StoreSubject,
  states: readonly ChatState[],
  maxPuts = WARM_UP_PUTS,
): Promise<void> {
  const threads = Math.max(1, Math.floor(Math.min(WARM_UP_PUTS, maxPuts) / states.length));
  for (let t = 0; t < threads; t++) {
    const thread = t === 0 ? 'warm-up' : `warm-up-${t}`;
    for (let step = 0; step < states.length; step++) await subject.put(thread, step, states[step]!);
  }
}
