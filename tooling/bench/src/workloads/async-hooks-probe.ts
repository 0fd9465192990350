import { executionAsyncId } from 'node:async_hooks';

/**
 * Whether promise hooks are on in this thread, as AsyncLocalStorage turns them on (Node 20): a promise
 * continuation then has an async id; without hooks it reads 0. Once on, every promise in the process
 * costs more, which would tax whatever is measured next.
 */
export async function promiseHooksEnabled(): Promise<boolean> {
  await null;
  return executionAsyncId() !== 0;
}
