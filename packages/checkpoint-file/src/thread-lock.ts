import { FileLock, type FileLockOptions } from './file-lock.js';
import { KeyedMutex } from './keyed-mutex.js';

/** One queue per lock file for the whole process (every FileCheckpointer instance shares it). */
const inProcess = new KeyedMutex();

/**
 * Runs `fn` holding a thread's lock: first the in-process queue (no polling, so uncontended puts pay
 * nothing but the lock file's create and unlink), then the lock file against other processes.
 * `fn` learns whether a stale lock was broken, so it can clean up after the crashed holder.
 */
export async function withThreadLock<T>(
  lockPath: string,
  options: FileLockOptions,
  fn: (brokeStale: boolean) => Promise<T>,
): Promise<T> {
  return inProcess.run(lockPath, async () => {
    const lock = new FileLock(lockPath, options);
    const brokeStale = await lock.acquire();
    try {
      return await fn(brokeStale);
    } finally {
      // The work is committed by now; a failed unlink must not turn it into a reported failure. A lock
      // left behind by this live process is broken by others once it is older than `staleMs`.
      await lock.release().catch(() => {});
    }
  });
}
