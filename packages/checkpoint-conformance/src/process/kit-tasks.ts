import type { ChildTask } from './child-spec.js';

const TASKS = new URL('../../child/tasks.mjs', import.meta.url);

/** The tasks in `child/tasks.mjs` that the kit runs in child processes. */
export type KitTaskName =
  | 'conditionalPuts'
  | 'unconditionalPuts'
  | 'claimSteps'
  | 'answerInterrupt'
  | 'raceWrites'
  | 'raceLease';

/** A reference to one of the kit's own child tasks. */
export function kitTask(name: KitTaskName): ChildTask {
  return { module: TASKS, export: name };
}
