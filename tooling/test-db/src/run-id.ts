import { newRunId, RUN_ID_ENV } from './unique.js';

const OWNER_ENV = 'FLOW_TEST_RUN_OWNER';

/**
 * Gives this vitest process a fresh run id (once, even when both global setups run), and exports it to the
 * workers through the environment. An id inherited from a parent process is replaced: two runs sharing one id
 * would sweep each other's schemas at teardown.
 */
export function claimRunId(): string {
  if (process.env[OWNER_ENV] !== String(process.pid) || !process.env[RUN_ID_ENV]) {
    process.env[RUN_ID_ENV] = newRunId();
    process.env[OWNER_ENV] = String(process.pid);
  }
  return process.env[RUN_ID_ENV]!;
}
