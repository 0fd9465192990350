import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | undefined;

/**
 * Runs a full garbage collection now. A command that has just let go of a large state calls it: V8 collects
 * large strings and objects lazily, and without it the garbage of a dozen 20 MB states piles up to hundreds
 * of MB of memory before the first full collection. The collector is reached through the documented
 * `--expose-gc` flag, turned on for a fresh context only.
 */
export function collectGarbage(): void {
  if (collect === undefined) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
}
